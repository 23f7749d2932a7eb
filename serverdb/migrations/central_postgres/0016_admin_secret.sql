-- A session belongs to one secret of its administrator: a random value
-- replaced with every password reset (and new for a name added again). A
-- session is live only while its secret is the administrator's, so a
-- sign-in that checked the old password while a reset committed, or a
-- session left from a removed account of the same name, opens nothing.
-- Every administrator gets a secret here and sessions made before have
-- none: each browser signs in once more.
ALTER TABLE admins ADD COLUMN secret TEXT NOT NULL DEFAULT '';
UPDATE admins SET secret = md5(random()::text || clock_timestamp()::text || name);
ALTER TABLE admin_sessions ADD COLUMN secret TEXT NOT NULL DEFAULT '';
