-- qrdesk: older releases may open a database with this migration
-- A desk's time zone, seconds east of UTC, as its latest report said
-- (DeskReport.UTCOffset); NULL: not told (the server's zone is assumed).
-- The dashboard counts a desk's day over the desk's own day.
ALTER TABLE stations ADD COLUMN utc_offset INTEGER;
