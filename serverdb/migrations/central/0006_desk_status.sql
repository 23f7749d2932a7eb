-- What only a desk knows (its outbox, what it printed), the latest report
-- per desk and label day, for the dashboard. Informational: no decision
-- reads it.
CREATE TABLE desk_status (
    station        TEXT    NOT NULL,          -- stations.name, as events.station
    date           TEXT    NOT NULL,          -- the desk's label day, YYYY-MM-DD
    events_waiting INTEGER NOT NULL,
    print_jobs     INTEGER NOT NULL,
    labels_printed INTEGER NOT NULL,
    reprints       INTEGER NOT NULL,
    at             INTEGER NOT NULL,          -- the desk's clock
    received_at    INTEGER NOT NULL,          -- the server's clock
    PRIMARY KEY (station, date)
) STRICT;
