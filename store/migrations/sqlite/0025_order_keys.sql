-- qrdesk: older releases may open a database with this migration
-- An order number as a clerk reads it (app.OrderKey: any case, full or
-- half width, composed or not), the form an import compares numbers in,
-- for the orders imported here and those of the site's other desks the
-- feed marked (order_marks):
-- SQLite's NOCASE folds only A–Z, so "straße-4" after "STRASSE-4" was
-- issued twice. Unique, so a second import of the order is refused in the
-- transaction that would issue it. Older releases leave it empty on the
-- orders they import (the index skips those); the desk fills every empty
-- one when it opens the database (fillOrderKeys), before it imports
-- anything, and leaves empty the later of two orders an older release
-- issued in two spellings (the earlier names the order as issued).
ALTER TABLE orders ADD COLUMN number_key TEXT NOT NULL DEFAULT '';
CREATE UNIQUE INDEX orders_number_key ON orders (number_key) WHERE number_key <> '';
ALTER TABLE order_marks ADD COLUMN number_key TEXT NOT NULL DEFAULT '';
CREATE INDEX order_marks_number_key ON order_marks (number_key);
