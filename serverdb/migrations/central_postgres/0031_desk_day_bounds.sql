-- qrdesk: older releases may open a database with this migration
-- The bounds of the desk's day of the report's date on its clock
-- (DeskReport.DayFrom, DayTo; 0 when not told): the dashboard counts the
-- desk's row of that date over them.
ALTER TABLE desk_status ADD COLUMN day_from INTEGER NOT NULL DEFAULT 0;
ALTER TABLE desk_status ADD COLUMN day_to INTEGER NOT NULL DEFAULT 0;
