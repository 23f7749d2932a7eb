-- How far each station has read the change feed, so the feed can be
-- compacted below what every active station has applied.
ALTER TABLE stations ADD COLUMN feed_ack INTEGER NOT NULL DEFAULT 0;
ALTER TABLE stations ADD COLUMN feed_acked_at INTEGER NOT NULL DEFAULT 0;

-- Feed positions must never be handed out twice, even after compaction
-- has emptied the table: AUTOINCREMENT keeps the highest seq ever given.
CREATE TABLE changes_new (
    seq     INTEGER PRIMARY KEY AUTOINCREMENT,
    kind    TEXT    NOT NULL,
    code    TEXT    NOT NULL,
    station TEXT    NOT NULL,
    data    TEXT    NOT NULL
) STRICT;
INSERT INTO changes_new (seq, kind, code, station, data) SELECT seq, kind, code, station, data FROM changes;
DROP TABLE changes;
ALTER TABLE changes_new RENAME TO changes;
