-- A desk's own figures count the redemptions it made (an online mirror of
-- its own scan's redemption, or its offline decision), whatever name the
-- row carries: online redemptions are stored under the server's name for
-- the desk, sync rewrites offline ones to it, and the desk may be renamed.
ALTER TABLE redemptions ADD COLUMN own INTEGER NOT NULL DEFAULT 0;
-- Existing rows: those this desk sent (its outbox has the redemption's
-- event, offline or online as sent), or stored under its present name.
UPDATE redemptions SET own = 1
    WHERE EXISTS (SELECT 1 FROM outbox o WHERE o.event_id = redemptions.trace_id AND o.kind = 'redeem')
       OR station = (SELECT value FROM settings WHERE key = 'station_name');
