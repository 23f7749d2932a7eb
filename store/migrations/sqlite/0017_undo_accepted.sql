-- An undo the server once accepted (issue 17, the soak's PostgreSQL seed
-- 695094661): restored from an older backup, the server can refuse it when
-- it is sent again (another desk's redemption, uploaded meanwhile, is the
-- one of record there); restored again to a newer backup, it holds the
-- undo. The desk sends such an undo again after every restore, as it does
-- what the server accepted, and never one only ever refused.
ALTER TABLE undos ADD COLUMN accepted INTEGER NOT NULL DEFAULT 0;
UPDATE undos SET accepted = 1 WHERE event_id IN (SELECT event_id FROM outbox WHERE kind = 'undo' AND state = 'sent');
