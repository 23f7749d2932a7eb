-- An administrator may be limited to some sites: they see only those
-- sites' figures, desks, conflicts and labels on the dashboard, and act
-- only on those. all_sites = 1 (every administrator from before, and one
-- added without --sites) sees the whole deployment and alone manages what
-- is the deployment's (the staff list). A limited administrator's sites
-- are the rows of admin_sites; removing the administrator removes them.
ALTER TABLE admins ADD COLUMN all_sites SMALLINT NOT NULL DEFAULT 1 CHECK (all_sites IN (0, 1));
CREATE TABLE admin_sites (
    admin TEXT   NOT NULL REFERENCES admins (name) ON DELETE CASCADE,
    site  BIGINT NOT NULL REFERENCES sites (id),
    PRIMARY KEY (admin, site)
);
