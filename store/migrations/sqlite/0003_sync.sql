-- Syncing with qrdesk-server: every change of a code's state made here is
-- also an outbox event, written in the same transaction, uploaded later.
CREATE TABLE outbox (
    id       INTEGER PRIMARY KEY,
    event_id TEXT    NOT NULL UNIQUE,
    kind     TEXT    NOT NULL,                -- redeem, disable, enable
    code     TEXT    NOT NULL,
    operator TEXT    NOT NULL DEFAULT '',
    at       INTEGER NOT NULL,
    offline  INTEGER NOT NULL DEFAULT 1,      -- decided here, not by the server
    reason   TEXT    NOT NULL DEFAULT '',
    state    TEXT    NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sent', 'rejected')),
    result   TEXT    NOT NULL DEFAULT '',
    sent_at  INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX outbox_pending ON outbox (id) WHERE state = 'pending';

-- Cursor of the change feed, last successful sync, …
CREATE TABLE sync_state (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) STRICT;

-- Codes redeemed at two stations while offline, as the server reported them.
CREATE TABLE conflicts (
    id              INTEGER PRIMARY KEY,
    code            TEXT    NOT NULL,
    first_event     TEXT    NOT NULL,
    first_station   TEXT    NOT NULL,
    first_operator  TEXT    NOT NULL,
    first_at        INTEGER NOT NULL,
    second_event    TEXT    NOT NULL UNIQUE,
    second_station  TEXT    NOT NULL,
    second_operator TEXT    NOT NULL,
    second_at       INTEGER NOT NULL
) STRICT;

ALTER TABLE batches ADD COLUMN uploaded INTEGER NOT NULL DEFAULT 0;
