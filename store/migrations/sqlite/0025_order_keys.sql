-- qrdesk: older releases may open a database with this migration
-- An order number as a clerk reads it (app.OrderKey: any case, full or
-- half width, composed or not), the form an import compares numbers in:
-- SQLite's NOCASE folds only A–Z, so "ä1" after "Ä1" was issued twice.
-- Older releases leave it empty on the orders they import; the desk fills
-- every empty one when it opens the database (fillOrderKeys), before it
-- imports anything. Not unique: two orders an older release issued in two
-- cases keep their rows; the desk issues neither again.
ALTER TABLE orders ADD COLUMN number_key TEXT NOT NULL DEFAULT '';
CREATE INDEX orders_number_key ON orders (number_key);
