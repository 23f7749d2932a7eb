-- Sites (a warehouse, a store): each station belongs to one, and so does
-- each label (the site of the station that uploaded it). A desk downloads
-- only its own site's labels and the changes to them, plus the
-- deployment-wide changes (the staff list: site 0). A deployment from
-- before sites becomes one site, 'main', holding every station and label.
CREATE TABLE sites (
    id         BIGSERIAL PRIMARY KEY,
    name       TEXT   NOT NULL,
    created_at BIGINT NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX sites_name ON sites (lower(name));
INSERT INTO sites (id, name) VALUES (1, 'main');
SELECT setval(pg_get_serial_sequence('sites', 'id'), 1);
ALTER TABLE stations ADD COLUMN site BIGINT NOT NULL DEFAULT 1 REFERENCES sites (id);
-- The feed position at the station's last move to another site: a desk
-- whose cursor is below it starts over from its new site's snapshot.
ALTER TABLE stations ADD COLUMN site_from BIGINT NOT NULL DEFAULT 0;
ALTER TABLE codes ADD COLUMN site BIGINT NOT NULL DEFAULT 1;
CREATE INDEX codes_site ON codes (site, id);
-- The feed of one site is read through this index: its changes after a
-- position, in position order (the deployment-wide ones are site 0).
ALTER TABLE changes ADD COLUMN site BIGINT NOT NULL DEFAULT 1;
UPDATE changes SET site = 0 WHERE kind = 'staff';
CREATE INDEX changes_site ON changes (site, pos);
