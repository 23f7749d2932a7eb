-- qrdesk: older releases may open a database with this migration
-- The pickup orders imported at this desk (qrdesk orders import), one row
-- per order, written in the transaction that issues its batch: an order is
-- issued once, and re-importing a file issues nothing twice. The labels
-- carry the order number as their ref; the customer is found here.
CREATE TABLE orders (
    number      TEXT    NOT NULL COLLATE NOCASE PRIMARY KEY,
    customer    TEXT    NOT NULL DEFAULT '',
    parcels     INTEGER NOT NULL,
    notes       TEXT    NOT NULL DEFAULT '',
    batch_id    INTEGER NOT NULL REFERENCES batches (id),
    imported_at INTEGER NOT NULL
) STRICT;
CREATE INDEX orders_customer ON orders (customer COLLATE NOCASE);
