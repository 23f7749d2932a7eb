-- Typed flags and the decided time of every event: rules read these, never
-- the wording in events.flag (kept for people). The bits are
-- central.Flags: 1 desk clock ahead, 2 desk clock behind, 4 redeemed
-- offline while disabled, 8 redeemed offline after its expiry.
ALTER TABLE events ADD COLUMN flags BIGINT NOT NULL DEFAULT 0;
-- The time the server decided the event at (central.DecideTime): the
-- desk's clock for an offline event it trusted, its own clock otherwise.
ALTER TABLE events ADD COLUMN decided_at BIGINT NOT NULL DEFAULT 0;

-- Events an older server stored carry only the wording: read it once.
UPDATE events SET flags =
      (CASE WHEN flag LIKE 'desk clock ahead%' THEN 1 ELSE 0 END)
    + (CASE WHEN flag LIKE 'desk clock behind%' THEN 2 ELSE 0 END)
    + (CASE WHEN flag LIKE '%redeemed offline while disabled: %' THEN 4 ELSE 0 END)
    + (CASE WHEN flag LIKE '%redeemed offline after its expiry %' THEN 8 ELSE 0 END)
WHERE flag <> '';
UPDATE events SET decided_at = CASE WHEN offline AND flag NOT LIKE 'desk clock%' THEN at ELSE received_at END;
