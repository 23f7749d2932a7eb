-- A replacement links labels into one entitlement, as at the server: every
-- label of it carries its root label's code ('' for a label never
-- replaced). This desk refuses a label whose entitlement it knows was used.
ALTER TABLE codes ADD COLUMN entitlement TEXT NOT NULL DEFAULT '';
CREATE INDEX codes_entitlement ON codes (entitlement) WHERE entitlement <> '';
-- The other label of a conflict of one entitlement ('' for one label).
ALTER TABLE conflicts ADD COLUMN second_code TEXT NOT NULL DEFAULT '';
-- What a replace event carries: the new label, its expiry and issue time.
ALTER TABLE outbox ADD COLUMN new_code TEXT NOT NULL DEFAULT '';
ALTER TABLE outbox ADD COLUMN new_expire_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE outbox ADD COLUMN new_created_at INTEGER NOT NULL DEFAULT 0;
