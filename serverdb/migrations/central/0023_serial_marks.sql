-- The highest serial of a station letter per label date and prefix, read
-- at every enrolment (SerialMarks): a desk restored from its own backup
-- learns the serials it issued after the backup and never issues them again.
CREATE INDEX codes_letter_serial ON codes (station_id, label_date, prefix, serial) WHERE serial IS NOT NULL;
