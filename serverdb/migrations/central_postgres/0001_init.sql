-- qrdesk-server schema (PostgreSQL), version 1. All times are Unix seconds.

CREATE TABLE deployment (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE stations (
    id         BIGSERIAL PRIMARY KEY,
    name       TEXT    NOT NULL UNIQUE,
    token_hash TEXT    NOT NULL UNIQUE,   -- SHA-256 of the bearer token; the token itself is never stored
    created_at BIGINT NOT NULL,
    revoked_at BIGINT NOT NULL DEFAULT 0
);

CREATE TABLE codes (
    id            BIGSERIAL PRIMARY KEY,
    code          TEXT    NOT NULL UNIQUE,
    random        TEXT    NOT NULL UNIQUE,
    prefix        TEXT    NOT NULL DEFAULT '',
    label_date    TEXT    NOT NULL DEFAULT '',
    station_id    TEXT,
    serial        INTEGER,
    issued_by     TEXT    NOT NULL,           -- station name
    status        TEXT    NOT NULL DEFAULT 'unused' CHECK (status IN ('unused', 'used', 'expired', 'disabled')),
    expire_at     BIGINT NOT NULL DEFAULT 0,
    used_at       BIGINT NOT NULL DEFAULT 0,
    used_station  TEXT    NOT NULL DEFAULT '',
    used_operator TEXT    NOT NULL DEFAULT '',
    used_event    TEXT    NOT NULL DEFAULT '',
    disabled_reason TEXT  NOT NULL DEFAULT '',
    created_at    BIGINT NOT NULL,
    UNIQUE (serial, label_date, station_id, prefix)
);

-- Every event a station sent, once (event_id UNIQUE): re-sending is a no-op.
CREATE TABLE events (
    id          BIGSERIAL PRIMARY KEY,
    event_id    TEXT    NOT NULL UNIQUE,
    station     TEXT    NOT NULL,
    kind        TEXT    NOT NULL,             -- redeem, disable, enable
    code        TEXT    NOT NULL,
    operator    TEXT    NOT NULL DEFAULT '',
    at          BIGINT NOT NULL,             -- the station's clock when it happened
    received_at BIGINT NOT NULL,             -- the server's clock
    offline     BOOLEAN NOT NULL DEFAULT false,
    outcome     TEXT    NOT NULL,
    detail      TEXT    NOT NULL DEFAULT ''
);

-- The same code redeemed at two stations while offline: both facts kept.
CREATE TABLE conflicts (
    id              BIGSERIAL PRIMARY KEY,
    code            TEXT    NOT NULL,
    first_event     TEXT    NOT NULL,
    first_station   TEXT    NOT NULL,
    first_operator  TEXT    NOT NULL,
    first_at        BIGINT NOT NULL,
    second_event    TEXT    NOT NULL UNIQUE,
    second_station  TEXT    NOT NULL,
    second_operator TEXT    NOT NULL,
    second_at       BIGINT NOT NULL,
    detected_at     BIGINT NOT NULL
);
CREATE INDEX conflicts_at ON conflicts (first_at);

-- The change feed stations download from a cursor (seq).
CREATE TABLE changes (
    seq     BIGSERIAL PRIMARY KEY,
    kind    TEXT    NOT NULL,                 -- code, redeem, disable, enable, conflict
    code    TEXT    NOT NULL,
    station TEXT    NOT NULL,
    data    TEXT    NOT NULL                  -- JSON
);
