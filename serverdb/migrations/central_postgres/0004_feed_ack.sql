-- How far each station has read the change feed, so the feed can be
-- compacted below what every active station has applied.
ALTER TABLE stations ADD COLUMN feed_ack BIGINT NOT NULL DEFAULT 0;
ALTER TABLE stations ADD COLUMN feed_acked_at BIGINT NOT NULL DEFAULT 0;
