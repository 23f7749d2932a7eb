-- Restore detection by content: every feed change gets a random tag when
-- it is written. A desk asks for the feed after its cursor with the tag of
-- the last change it applied; a server whose change at that position has
-- another tag (a restore from a backup, the positions after it written
-- again) answers feed_reset. Changes written before this migration have
-- none, and are not checked.
ALTER TABLE changes ADD COLUMN tag TEXT NOT NULL DEFAULT '';
