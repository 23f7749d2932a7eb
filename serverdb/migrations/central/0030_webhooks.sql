-- qrdesk: older releases may open a database with this migration
-- Handovers out (docs/webhooks.md): the change feed is the outbox. Every
-- decided event's change is written in the transaction that decides it;
-- each webhook endpoint keeps the feed position it has delivered through
-- (cursor), so nothing is written twice and nothing is lost in a restart.
--
-- holder_copy: 1 on a change written again for another site holding a
-- copy of the label (addHolderChanges): the same fact, delivered once.
-- decided_at: the server's clock when it decided (Unix seconds; 0 from a
-- release before this one).
ALTER TABLE changes ADD COLUMN holder_copy INTEGER NOT NULL DEFAULT 0;
ALTER TABLE changes ADD COLUMN decided_at INTEGER NOT NULL DEFAULT 0;

-- An endpoint: its URL, its signing secret (never shown after 'webhook
-- add'), paused or not, and the feed position delivered through. The
-- lease keeps one deliverer per endpoint among the server processes of a
-- deployment (a process that stops holding it, the next takes over).
CREATE TABLE webhooks (
    id          INTEGER PRIMARY KEY,
    name        TEXT    NOT NULL UNIQUE,
    url         TEXT    NOT NULL,
    secret      TEXT    NOT NULL,
    paused      INTEGER NOT NULL DEFAULT 0,
    delivered   INTEGER NOT NULL DEFAULT 0,  -- the feed position delivered through
    created_at  INTEGER NOT NULL DEFAULT 0,
    failures    INTEGER NOT NULL DEFAULT 0,  -- attempts failed in a row
    last_error  TEXT    NOT NULL DEFAULT '',
    lease_owner TEXT    NOT NULL DEFAULT '',
    lease_until INTEGER NOT NULL DEFAULT 0
) STRICT;

-- The delivery log: the latest attempts of each endpoint (the deliverer
-- keeps the last few hundred), with the HTTP status (0: no answer) and
-- what went wrong.
CREATE TABLE webhook_attempts (
    id        INTEGER PRIMARY KEY,
    webhook   INTEGER NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    position  INTEGER NOT NULL,
    event_id  TEXT    NOT NULL,
    at        INTEGER NOT NULL,
    status    INTEGER NOT NULL,
    error     TEXT    NOT NULL DEFAULT '',
    took_ms   INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX webhook_attempts_by_webhook ON webhook_attempts (webhook, id);
