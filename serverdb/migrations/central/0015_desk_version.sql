-- What each desk last said it runs (its release and protocol version, from
-- the headers of its requests), for the dashboard's Desks page: 0 and ''
-- until the desk speaks to a server of this release. Informational: no
-- decision reads it.
ALTER TABLE stations ADD COLUMN desk_release TEXT NOT NULL DEFAULT '';
ALTER TABLE stations ADD COLUMN desk_protocol INTEGER NOT NULL DEFAULT 0;
