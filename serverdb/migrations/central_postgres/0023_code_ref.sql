-- A label's batch ref (free text the clerk typed, at most 200 characters
-- on one line) and its batch number at the desk that issued it, sent with
-- the batch by desks of protocol 4 (protocol.RefVersion). '' and 0 for a
-- label uploaded before, or by an older desk. The ref travels on to the
-- other desks in the feed and the snapshot; the dashboard's Code lookup
-- shows both. Constant defaults and no CHECK: no table rewrite or scan
-- (central.ValidateCodes checks both).
ALTER TABLE codes ADD COLUMN ref TEXT NOT NULL DEFAULT '';
ALTER TABLE codes ADD COLUMN batch BIGINT NOT NULL DEFAULT 0;
