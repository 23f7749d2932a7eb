-- The deployment's staff list: the operators who sign in at its desks
-- (protocol/staff.go). Never deleted: removal stamps removed_at, and ids
-- are never reused (a badge names its id). The PIN is only the desk's
-- salted argon2id hash, never the PIN.
CREATE TABLE staff (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    name          TEXT    NOT NULL,
    supervisor    INTEGER NOT NULL DEFAULT 0 CHECK (supervisor IN (0, 1)),
    pin_hash      TEXT    NOT NULL,
    badge_version INTEGER NOT NULL DEFAULT 1 CHECK (badge_version >= 1),
    created_at    INTEGER NOT NULL,
    removed_at    INTEGER NOT NULL DEFAULT 0
) STRICT;
-- One current member per name (any case); a removed name may be added again.
CREATE UNIQUE INDEX staff_current_name ON staff (lower(name)) WHERE removed_at = 0;
