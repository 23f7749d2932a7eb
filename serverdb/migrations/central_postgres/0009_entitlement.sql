-- A replacement links labels into one entitlement (central/entitlement.go):
-- every label of it carries the code of its root label (the first one);
-- '' for a label never replaced. A use of two labels of one entitlement is
-- a double use. A redemption changes no indexed column still (HOT updates).
ALTER TABLE codes ADD COLUMN entitlement TEXT NOT NULL DEFAULT '';
CREATE INDEX codes_entitlement ON codes (entitlement) WHERE entitlement <> '';
-- A conflict of two labels of one entitlement names the second label
-- ('' when both uses are of the same label).
ALTER TABLE conflicts ADD COLUMN second_code TEXT NOT NULL DEFAULT '';
