-- The site a close's expiry was made in: the desk's site as it knew it when
-- it closed its day (sync_state server_sites), sent with the event, so that
-- a server that holds the desk in another site when the event arrives (the
-- desk moved meanwhile, or a restore lost its move) expires nothing of it.
ALTER TABLE outbox ADD COLUMN site TEXT NOT NULL DEFAULT '';
