-- One current member per name as a desk tells names apart: the case of
-- A–Z folded, no other letter's (a desk's SQLite NOCASE). lower() folds
-- every letter the database's locale knows, so the index and the
-- server's comparisons (serverdb/staff.go, sameName) fold under the "C"
-- collation, A–Z only: "émile" and "Émile" are two operators, at the
-- server as at every desk.
DROP INDEX staff_current_name;
CREATE UNIQUE INDEX staff_current_name ON staff (lower(name COLLATE "C")) WHERE removed_at = 0;
