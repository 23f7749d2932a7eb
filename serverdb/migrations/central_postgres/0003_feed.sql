-- A change feed that does not serialise writers. Writers insert changes
-- without any lock; a feed position is given to a change only after its
-- transaction has committed, by one placer at a time, always above every
-- position given before. So positions are handed out in commit order and
-- no desk's cursor can pass a change that commits later.
ALTER TABLE changes ADD COLUMN pos BIGINT;
UPDATE changes SET pos = seq; -- written under the old feed lock: already in commit order
CREATE UNIQUE INDEX changes_pos ON changes (pos);
CREATE INDEX changes_unplaced ON changes (seq) WHERE pos IS NULL;
