-- The highest serials the desks hold labels of, per station letter, label
-- date and prefix, as they tell a server that lost history (restored from a
-- backup: protocol.EnrolRequest.Held). SerialMarks never answers below
-- them, so a desk restored with the server to before it issued some serials
-- learns them from the other desks' copies and never issues them again.
CREATE TABLE held_serials (
    station_id TEXT    NOT NULL,
    label_date TEXT    NOT NULL,
    prefix     TEXT    NOT NULL DEFAULT '',
    serial     INTEGER NOT NULL,
    PRIMARY KEY (station_id, label_date, prefix)
);
