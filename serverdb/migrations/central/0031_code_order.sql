-- qrdesk: older releases may open a database with this migration
-- A label of a pickup order (qrdesk orders import) carries its order's
-- customer ('' when the order file named none), sent with the batch by
-- desks of protocol 6 (protocol.OrderVersion); NULL for any other label,
-- and for one uploaded by an older desk. The mark travels on to the other
-- desks in the feed and the snapshot, so a scan there names the order,
-- the customer and the parcel (central.ValidateCodes checks it).
ALTER TABLE codes ADD COLUMN order_customer TEXT;
