-- Every desk's figures of a day count the codes by issue time (the other
-- desks' codes too, which have no batch of this desk's day).
CREATE INDEX codes_created ON codes (created_at);
