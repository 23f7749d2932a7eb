-- The refusals a desk decided on its own (JSON of app.DeskRefusals; '' when
-- it reported none): the server never sees them, the dashboard shows them
-- apart from the ones it decided.
ALTER TABLE desk_status ADD COLUMN refused_here TEXT NOT NULL DEFAULT '';
