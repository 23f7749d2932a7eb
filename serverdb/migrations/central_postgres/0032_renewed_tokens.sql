-- qrdesk: older releases may open a database with this migration
-- The tokens a station had before 'qrdesk-server station renew' gave it a
-- new one (SHA-256, as stations.token_hash): a desk still using one is
-- told its token was renewed, not that the server does not know it (which
-- blames a restore of the server).
CREATE TABLE renewed_tokens (
    token_hash TEXT    PRIMARY KEY,
    station    BIGINT  NOT NULL REFERENCES stations (id)
);
