-- qrdesk: older releases may open a database with this migration
-- The labels the server's feed or snapshot marked as a pickup order's
-- (protocol.OrderLabel), one row per label. A desk names another desk's
-- order parcel only for these: a label of another site reaches it without
-- the mark (the desk holds it alone, not the order's other parcels), and
-- an order this desk imported under the same number is its own batch's
-- (orders.batch_id), not another station's labels of that number.
CREATE TABLE order_labels (
    code TEXT NOT NULL PRIMARY KEY
) STRICT;
-- The marks kept so far were by number: every label of such a number not
-- of an order imported here counts as marked.
INSERT OR IGNORE INTO order_labels (code)
    SELECT c.code FROM codes c JOIN order_marks m ON m.number = c.ref
    WHERE c.ref <> '' AND NOT EXISTS (SELECT 1 FROM orders o WHERE o.batch_id = c.batch_id);
