-- A change feed that does not serialise writers. Each change records the
-- transaction that wrote it; a feed position is given only to changes
-- whose transaction (and every older one) has finished, in the order
-- (transaction id, seq), by one placer at a time. Writers take no lock, and
-- no desk's cursor can pass a change that commits later.
ALTER TABLE changes ADD COLUMN xid xid8 NOT NULL DEFAULT pg_current_xact_id();
ALTER TABLE changes ADD COLUMN pos BIGINT;
UPDATE changes SET pos = seq; -- written under the old feed lock: already in commit order
CREATE UNIQUE INDEX changes_pos ON changes (pos);
CREATE INDEX changes_unplaced ON changes (xid, seq) WHERE pos IS NULL;
