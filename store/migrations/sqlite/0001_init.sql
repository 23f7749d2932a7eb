-- qrdesk schema, version 1. All times are Unix seconds.

CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) STRICT;

CREATE TABLE batches (
    id           INTEGER PRIMARY KEY,
    label_date   TEXT    NOT NULL,            -- YYYY-MM-DD, the station's local day
    count        INTEGER NOT NULL CHECK (count > 0),
    type         TEXT    NOT NULL DEFAULT '',
    ref          TEXT    NOT NULL DEFAULT '',
    expire_at    INTEGER NOT NULL DEFAULT 0,  -- 0: never
    created_at   INTEGER NOT NULL,
    first_serial INTEGER NOT NULL DEFAULT 0,
    last_serial  INTEGER NOT NULL DEFAULT 0,
    prefix       TEXT    NOT NULL DEFAULT '',
    station_id   TEXT    NOT NULL DEFAULT '',  -- '' when the batch has no serials
    station      TEXT    NOT NULL,
    operator     TEXT    NOT NULL DEFAULT ''
) STRICT;
CREATE INDEX batches_serials ON batches (label_date, prefix, station_id);
CREATE INDEX batches_created ON batches (created_at);

CREATE TABLE codes (
    id              INTEGER PRIMARY KEY,
    code            TEXT    NOT NULL,          -- canonical printed form
    random          TEXT    NOT NULL,
    prefix          TEXT    NOT NULL DEFAULT '',
    label_date      TEXT    NOT NULL,          -- YYYY-MM-DD
    station_id      TEXT,                      -- NULL when the code has no serial
    serial          INTEGER,                   -- NULL when the code has no serial
    batch_id        INTEGER NOT NULL REFERENCES batches (id),
    type            TEXT    NOT NULL DEFAULT '',
    ref             TEXT    NOT NULL DEFAULT '',
    key_id          TEXT    NOT NULL,
    status          TEXT    NOT NULL DEFAULT 'unused'
                    CHECK (status IN ('unused', 'used', 'expired', 'disabled')),
    expire_at       INTEGER NOT NULL DEFAULT 0,
    created_at      INTEGER NOT NULL,
    used_at         INTEGER NOT NULL DEFAULT 0,
    disabled_reason TEXT    NOT NULL DEFAULT '',
    print_count     INTEGER NOT NULL DEFAULT 0,
    -- serial first, so a search by serial alone uses this index too
    UNIQUE (serial, label_date, station_id, prefix)
) STRICT;
CREATE UNIQUE INDEX codes_random ON codes (random);
CREATE INDEX codes_batch ON codes (batch_id);
CREATE INDEX codes_date ON codes (label_date, status);
CREATE INDEX codes_ref ON codes (ref) WHERE ref <> '';

-- One row per successful redemption, written in the same transaction as the
-- status change. UNIQUE(code_id): a code can be redeemed once, ever.
CREATE TABLE redemptions (
    id          INTEGER PRIMARY KEY,
    code_id     INTEGER NOT NULL UNIQUE REFERENCES codes (id),
    station     TEXT    NOT NULL,
    operator    TEXT    NOT NULL DEFAULT '',
    redeemed_at INTEGER NOT NULL,
    trace_id    TEXT    NOT NULL UNIQUE
) STRICT;
CREATE INDEX redemptions_at ON redemptions (redeemed_at);

-- Every scan attempt, refused ones too.
CREATE TABLE scans (
    id       INTEGER PRIMARY KEY,
    trace_id TEXT    NOT NULL UNIQUE,
    raw      TEXT    NOT NULL,                  -- escaped, truncated input
    code     TEXT    NOT NULL DEFAULT '',       -- normalised input
    code_id  INTEGER REFERENCES codes (id),
    outcome  TEXT    NOT NULL,
    station  TEXT    NOT NULL,
    operator TEXT    NOT NULL DEFAULT '',
    at       INTEGER NOT NULL
) STRICT;
CREATE INDEX scans_at ON scans (at);
CREATE INDEX scans_code ON scans (code_id) WHERE code_id IS NOT NULL;

CREATE TABLE audit (
    id       INTEGER PRIMARY KEY,
    at       INTEGER NOT NULL,
    station  TEXT    NOT NULL,
    operator TEXT    NOT NULL DEFAULT '',
    action   TEXT    NOT NULL,                  -- disable, enable, setting
    subject  TEXT    NOT NULL,                  -- code or setting key
    code_id  INTEGER REFERENCES codes (id),
    detail   TEXT    NOT NULL DEFAULT ''
) STRICT;
CREATE INDEX audit_code ON audit (code_id) WHERE code_id IS NOT NULL;
