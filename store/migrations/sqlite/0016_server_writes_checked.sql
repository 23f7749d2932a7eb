-- Restore detection names more than the highest write (issue 17, the
-- soak's PostgreSQL seed 354950093): a write the server gave this desk is
-- named once at an enrolment after it (checked = 1 once the server said
-- it holds it); later enrolments name only the highest checked write and
-- those not checked yet. A restore loses a suffix of the server's writes,
-- so a lost write is either unchecked (named) or below a checked write
-- given before the restore (which is lost too), whatever the server
-- numbered since.
ALTER TABLE server_writes ADD COLUMN checked INTEGER NOT NULL DEFAULT 0;
-- Each sync reads the unchecked ones, a few among every write ever given.
CREATE INDEX server_writes_unchecked ON server_writes (number) WHERE checked = 0;
