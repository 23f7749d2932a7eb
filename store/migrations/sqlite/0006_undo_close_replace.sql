-- Undo a redemption, close the day, replacement labels.

-- A supervisor may undo a redemption: the row stays (undone_at set) and an
-- undo row is added beside it, so a label may be redeemed again later. One
-- standing redemption per label instead of one ever; SQLite cannot drop the
-- old UNIQUE (code_id), so the table is rebuilt.
CREATE TABLE redemptions_v6 (
    id          INTEGER PRIMARY KEY,
    code_id     INTEGER NOT NULL REFERENCES codes (id),
    station     TEXT    NOT NULL,
    operator    TEXT    NOT NULL DEFAULT '',
    redeemed_at INTEGER NOT NULL,
    trace_id    TEXT    NOT NULL UNIQUE,
    undone_at   INTEGER NOT NULL DEFAULT 0      -- 0: standing
) STRICT;
INSERT INTO redemptions_v6 (id, code_id, station, operator, redeemed_at, trace_id)
    SELECT id, code_id, station, operator, redeemed_at, trace_id FROM redemptions;
DROP TABLE redemptions;
ALTER TABLE redemptions_v6 RENAME TO redemptions;
CREATE UNIQUE INDEX redemptions_standing ON redemptions (code_id) WHERE undone_at = 0;
CREATE INDEX redemptions_at ON redemptions (redeemed_at);

-- One row per undone redemption (here or, through the feed, at another desk).
CREATE TABLE undos (
    id            INTEGER PRIMARY KEY,
    redemption_id INTEGER NOT NULL UNIQUE REFERENCES redemptions (id),
    code_id       INTEGER NOT NULL REFERENCES codes (id),
    event_id      TEXT    NOT NULL UNIQUE,
    undoes        TEXT    NOT NULL,             -- the redemption's trace id
    station       TEXT    NOT NULL,
    operator      TEXT    NOT NULL DEFAULT '',
    at            INTEGER NOT NULL,
    reason        TEXT    NOT NULL,
    refused       TEXT    NOT NULL DEFAULT ''   -- the server's reason when it refused the undo
) STRICT;
CREATE INDEX undos_at ON undos (at);
CREATE INDEX undos_undoes ON undos (undoes);   -- a feed redemption this desk has undone

-- The redemption an outbox undo takes back. An online scan looks up the
-- undos still waiting for the label (every scan, so indexed).
ALTER TABLE outbox ADD COLUMN undoes TEXT NOT NULL DEFAULT '';
CREATE INDEX outbox_undo_waiting ON outbox (code) WHERE kind = 'undo' AND state = 'pending';

-- Every close of a day, with the figures as they were (JSON), so closing
-- again shows what changed since.
CREATE TABLE day_closes (
    id        INTEGER PRIMARY KEY,
    date      TEXT    NOT NULL,                 -- YYYY-MM-DD, the desk's day
    closed_at INTEGER NOT NULL,
    station   TEXT    NOT NULL,
    operator  TEXT    NOT NULL DEFAULT '',
    expired   INTEGER NOT NULL DEFAULT 0,       -- labels expired by this close
    figures   TEXT    NOT NULL
) STRICT;
CREATE INDEX day_closes_date ON day_closes (date, id);
