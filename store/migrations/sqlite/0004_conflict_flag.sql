-- Why the server flagged a conflict (e.g. a desk clock that was wrong).
ALTER TABLE conflicts ADD COLUMN flag TEXT NOT NULL DEFAULT '';
