-- qrdesk: older releases may open a database with this migration
-- The names a site had before a rename (qrdesk-server site rename), so
-- that a close a desk made under its site's former name, before it heard
-- of the rename, is taken as its site's close (central.CloseSiteRefusal).
-- A name taken by a site again is no longer a former name.
CREATE TABLE site_former_names (
    name       TEXT    NOT NULL PRIMARY KEY,
    site       INTEGER NOT NULL REFERENCES sites (id)
);
