-- Desk letters belong to stations; event identity and time sanity.

-- The station letter this station's codes carry ('' for none). No two
-- stations share one: a desk cannot upload codes in another desk's name.
ALTER TABLE stations ADD COLUMN letter TEXT NOT NULL DEFAULT '';
CREATE UNIQUE INDEX stations_letter ON stations (letter) WHERE letter <> '';

-- A disable's or enable's reason is part of the event (an id names one event).
ALTER TABLE events ADD COLUMN reason TEXT NOT NULL DEFAULT '';
-- Why the server did not take the desk's word for the time (or a disabled
-- label redeemed offline): shown in the report.
ALTER TABLE events ADD COLUMN flag TEXT NOT NULL DEFAULT '';
CREATE INDEX events_flagged ON events (received_at) WHERE flag <> '';
CREATE INDEX events_code ON events (code);

ALTER TABLE conflicts ADD COLUMN flag TEXT NOT NULL DEFAULT '';
CREATE INDEX conflicts_code ON conflicts (code);
