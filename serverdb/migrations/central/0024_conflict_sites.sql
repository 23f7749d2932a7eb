-- The sites a conflict's two desks were in when it was recorded: a
-- conflict belongs to the sites where it happened (and its label's),
-- fixed then, not to the sites its desks were moved to since
-- (ConflictRecord.Sites). 0: a station the server did not know. A
-- conflict recorded before takes its desks' sites as they are now, the
-- best the server knows of then.
ALTER TABLE conflicts ADD COLUMN first_site INTEGER NOT NULL DEFAULT 0;
ALTER TABLE conflicts ADD COLUMN second_site INTEGER NOT NULL DEFAULT 0;
UPDATE conflicts SET
    first_site = COALESCE((SELECT t.site FROM stations t WHERE t.name = conflicts.first_station), 0),
    second_site = COALESCE((SELECT t.site FROM stations t WHERE t.name = conflicts.second_station), 0);
