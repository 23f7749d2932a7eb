-- The deployment's staff list (qrdesk-server's): a desk whose server keeps
-- one mirrors it in operators; staff_id is the operator's id there, which
-- the desk's badges name (0: the desk's own list, or an operator the
-- server has not accepted yet).
ALTER TABLE operators ADD COLUMN staff_id INTEGER NOT NULL DEFAULT 0;
CREATE UNIQUE INDEX operators_staff_id ON operators (staff_id) WHERE staff_id <> 0;
-- A staff event's change of the list (protocol.StaffChange as JSON, the
-- PIN only as its hash); '' for the other kinds.
ALTER TABLE outbox ADD COLUMN staff TEXT NOT NULL DEFAULT '';
-- The desk's identity, made once: the badges of its own list name it, so
-- another desk (sharing the key ring) refuses them.
INSERT INTO sync_state (key, value) VALUES ('desk_id', lower(hex(randomblob(16)))) ON CONFLICT DO NOTHING;
