-- qrdesk: older releases may open a database with this migration
-- The pickup orders whose labels reached this desk through the server's
-- feed (issued at another desk of the site: protocol.OrderLabel), with
-- their customer. With the orders imported here (orders), a scan of a
-- label whose ref is an order number names the order, the customer and
-- the parcel. An order imported here is not repeated here.
CREATE TABLE order_marks (
    number   TEXT NOT NULL COLLATE NOCASE PRIMARY KEY,
    customer TEXT NOT NULL DEFAULT ''
) STRICT;
