-- Whether the central server decided a scan (its answer mirrored here) or
-- this desk did alone: the desk reports the refusals it decided alone, which
-- the server never sees. Scans from before are counted as the desk's own.
ALTER TABLE scans ADD COLUMN by_server INTEGER NOT NULL DEFAULT 0 CHECK (by_server IN (0, 1));
