-- An undo event names the redemption (its event id) it takes back.
ALTER TABLE events ADD COLUMN undoes TEXT NOT NULL DEFAULT '';
