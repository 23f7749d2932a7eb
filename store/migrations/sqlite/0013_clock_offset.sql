-- The desk's clock against the server's (app/clock.go): the last
-- measurement lives in sync_state ('clock_offset_ms', server minus desk in
-- milliseconds; 'clock_measured_at', the desk's Unix seconds). Every outbox
-- event keeps the measurement that was current when it was queued, so the
-- server can put it on its own clock even after the desk's clock is fixed
-- (NULL: none measured yet).
ALTER TABLE outbox ADD COLUMN clock_offset_ms INTEGER;
ALTER TABLE outbox ADD COLUMN clock_measured_at INTEGER;

-- A trigger, so that every place that queues an event (redeem, disable,
-- undo, replace, expire, a mirrored online redemption) stamps it alike.
CREATE TRIGGER outbox_clock AFTER INSERT ON outbox
WHEN NEW.clock_measured_at IS NULL
BEGIN
    UPDATE outbox SET
        clock_offset_ms = (SELECT CAST(value AS INTEGER) FROM sync_state WHERE key = 'clock_offset_ms'),
        clock_measured_at = (SELECT CAST(value AS INTEGER) FROM sync_state WHERE key = 'clock_measured_at')
    WHERE id = NEW.id;
END;
