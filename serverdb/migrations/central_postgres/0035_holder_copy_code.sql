-- qrdesk: older releases may open a database with this migration
-- A site's copies of another site's label by label: the server writes a
-- refresh of the label's status into the asking desk's site only when
-- that site's last copy of it does not already carry it (refreshHolderSite),
-- so repeated scans of a used label do not grow the site's feed. Only
-- holder copies: every change of another site's label in a site's feed is
-- one, and they are few beside a site's own changes.
CREATE INDEX changes_holder_code ON changes (code, site, seq) WHERE holder_copy = 1;
