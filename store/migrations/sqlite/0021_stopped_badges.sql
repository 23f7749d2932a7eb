-- qrdesk: older releases may open a database with this migration
-- The badges printed here that stopped signing in with a sync (the staff
-- list holds a newer badge of the operator, or removed them): said on the
-- window's sync line and by 'qrdesk sync' until a badge is printed for
-- the operator here or a supervisor dismisses it, across restarts.
CREATE TABLE stopped_badges (
    name    TEXT PRIMARY KEY COLLATE NOCASE,
    removed INTEGER NOT NULL DEFAULT 0,
    at      INTEGER NOT NULL
) STRICT;
