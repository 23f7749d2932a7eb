-- Restore detection: the server numbers the writes it stores for each
-- station (each new event row, each batch piece that added codes), in the
-- same transaction as the write. Every answer carries the number; a desk
-- that was given a number the server no longer has knows it lost history
-- (a restore from a backup, a failover to a lagging standby).
ALTER TABLE stations ADD COLUMN writes BIGINT NOT NULL DEFAULT 0;
-- The number given to the event; a duplicate answer carries it again.
ALTER TABLE events ADD COLUMN write_no BIGINT NOT NULL DEFAULT 0;
