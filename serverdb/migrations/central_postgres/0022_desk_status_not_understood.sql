-- How many of the feed's changes a desk did not understand (a newer
-- server's kinds or label statuses), all told, by its report
-- (app.DeskReport.NotUnderstood): the Desks page flags it for an upgrade.
ALTER TABLE desk_status ADD COLUMN not_understood INTEGER NOT NULL DEFAULT 0;
