-- Operators of the desk: pickers and supervisors. Never deleted: removal
-- stamps removed_at, so scans and audit rows that name them stay readable,
-- and a removed operator's badge and PIN stop working. The PIN is stored
-- only as an argon2id hash. badge_version is in each badge's signature:
-- raising it cancels a lost badge.
CREATE TABLE operators (
    id            INTEGER PRIMARY KEY AUTOINCREMENT, -- ids are never reused: a badge names its id
    name          TEXT    NOT NULL,
    supervisor    INTEGER NOT NULL DEFAULT 0 CHECK (supervisor IN (0, 1)),
    pin_hash      TEXT    NOT NULL,
    badge_version INTEGER NOT NULL DEFAULT 1 CHECK (badge_version >= 1),
    created_at    INTEGER NOT NULL,
    removed_at    INTEGER NOT NULL DEFAULT 0         -- 0: still working here
) STRICT;
-- One current operator per name; a removed name may be added again.
CREATE UNIQUE INDEX operators_current_name ON operators (name COLLATE NOCASE) WHERE removed_at = 0;
-- Sign-ins are audited; the wrong PINs since the last PIN sign-in decide how
-- long the desk waits (app.Staff), read through this small index.
CREATE INDEX audit_sign_in ON audit (action, id) WHERE action IN ('sign_in', 'sign_in_refused');
