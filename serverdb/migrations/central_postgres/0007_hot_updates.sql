-- Room on every page of codes for its own updated row: a redemption changes
-- no indexed column, so with free space on the page PostgreSQL updates the
-- row in place (a HOT update) instead of writing a new entry into each of
-- the table's four indexes. Applies to pages written from now on; an older
-- database gets it for all rows after VACUUM FULL codes.
ALTER TABLE codes SET (fillfactor = 70);
