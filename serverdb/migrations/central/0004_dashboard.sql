-- The web dashboard: administrators, their sessions, conflict resolutions
-- and the administrators' audit trail; indexes for a day's figures.

CREATE TABLE admins (
    id            INTEGER PRIMARY KEY,
    name          TEXT    NOT NULL UNIQUE,
    password_hash TEXT    NOT NULL,           -- bcrypt; the password itself is never stored
    created_at    INTEGER NOT NULL
) STRICT;

-- A signed-in browser: the cookie holds a random id, this table its SHA-256.
CREATE TABLE admin_sessions (
    id_hash    TEXT    PRIMARY KEY,
    admin      TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
) STRICT;
CREATE INDEX admin_sessions_admin ON admin_sessions (admin);

-- Only ever inserted: a conflict's resolutions are its audit trail.
CREATE TABLE conflict_resolutions (
    id          INTEGER PRIMARY KEY,
    conflict_id INTEGER NOT NULL REFERENCES conflicts (id),
    admin       TEXT    NOT NULL,
    note        TEXT    NOT NULL,
    at          INTEGER NOT NULL
) STRICT;
CREATE INDEX conflict_resolutions_conflict ON conflict_resolutions (conflict_id);

CREATE TABLE admin_log (
    id      INTEGER PRIMARY KEY,
    at      INTEGER NOT NULL,
    admin   TEXT    NOT NULL,
    action  TEXT    NOT NULL,
    subject TEXT    NOT NULL,
    detail  TEXT    NOT NULL DEFAULT ''
) STRICT;

-- A day's figures: codes by issue time, redemptions by the server's and
-- the desk's clock, a desk's latest event.
CREATE INDEX codes_created ON codes (created_at);
CREATE INDEX events_received ON events (received_at);
CREATE INDEX events_at ON events (at);
CREATE INDEX events_station ON events (station, received_at);
