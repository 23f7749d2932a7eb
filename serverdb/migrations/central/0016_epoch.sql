-- History epochs: 'qrdesk-server restore' starts a new one (deployment key
-- 'epoch'). A station whose epoch is behind is told at its next enrolment
-- that the server lost history (Enrolment.Lost), so its desk sends
-- everything again, and its epoch is brought up to date.
ALTER TABLE stations ADD COLUMN epoch INTEGER NOT NULL DEFAULT 0;
