-- A leaner code row. The printed code was stored whole (42 characters for
-- a code with a serial) beside the fields it is made of; it is now
-- computed from them when read (a VIRTUAL column: no bytes on disk, and
-- every query reads `code` as before). The row keeps what the fields lack:
-- the signature (8 characters), the serial's printed width and the code's
-- date as a number (YYMMDD). A row whose stored text is not what its
-- fields print keeps that text in code_text, so no code reads differently
-- after this migration; a new row never needs it (the store writes codes
-- in their printed form, app.Code.String).
--
-- The computed column calls no function (only CASE, arithmetic and ||):
-- SQLite keeps a statement journal for a multi-row INSERT into a table
-- whose computed column calls one, and that cost an issue a fifth of its
-- time.
--
-- The index of codes by batch also carries the issue time, which answers
-- the day's figures (codes issued in a time window, by batch): the index
-- by issue time alone goes.
--
-- Older releases write the printed code into the row: this migration is
-- not one they may open a database with.
ALTER TABLE codes ADD COLUMN sig TEXT NOT NULL DEFAULT '';
ALTER TABLE codes ADD COLUMN serial_len INTEGER;
ALTER TABLE codes ADD COLUMN code_date INTEGER;
ALTER TABLE codes ADD COLUMN code_text TEXT;

-- [PREFIX-][YYMMDD-SNNNN-]RANDOM12RAND-KSIGNATUR: the serial group is what
-- remains of the code's length once the rest is counted.
UPDATE codes SET sig = substr(code, -8),
    serial_len = CASE WHEN serial IS NULL THEN NULL
        ELSE length(code) - length(prefix) - iif(prefix <> '', 1, 0) - 31 END,
    code_date = CASE WHEN serial IS NULL THEN NULL
        ELSE CAST(substr(label_date, 3, 2) || substr(label_date, 6, 2) || substr(label_date, 9, 2) AS INTEGER) END;
UPDATE codes SET code_text = code
WHERE code IS NOT (CASE WHEN prefix <> '' THEN prefix || '-' ELSE '' END ||
    CASE WHEN serial IS NOT NULL THEN
        CASE WHEN code_date < 100000 THEN '0' ELSE '' END || code_date || '-' || station_id ||
        CASE serial_len - (CASE WHEN serial < 10 THEN 1 WHEN serial < 100 THEN 2 WHEN serial < 1000 THEN 3 WHEN serial < 10000 THEN 4 WHEN serial < 100000 THEN 5 WHEN serial < 1000000 THEN 6 WHEN serial < 10000000 THEN 7 ELSE 8 END)
        WHEN 1 THEN '0' WHEN 2 THEN '00' WHEN 3 THEN '000' WHEN 4 THEN '0000' WHEN 5 THEN '00000' WHEN 6 THEN '000000' WHEN 7 THEN '0000000' ELSE '' END || serial || '-'
    ELSE '' END ||
    random || '-' || key_id || sig);

ALTER TABLE codes DROP COLUMN code;
ALTER TABLE codes ADD COLUMN code TEXT GENERATED ALWAYS AS (coalesce(code_text,
    CASE WHEN prefix <> '' THEN prefix || '-' ELSE '' END ||
    CASE WHEN serial IS NOT NULL THEN
        CASE WHEN code_date < 100000 THEN '0' ELSE '' END || code_date || '-' || station_id ||
        CASE serial_len - (CASE WHEN serial < 10 THEN 1 WHEN serial < 100 THEN 2 WHEN serial < 1000 THEN 3 WHEN serial < 10000 THEN 4 WHEN serial < 100000 THEN 5 WHEN serial < 1000000 THEN 6 WHEN serial < 10000000 THEN 7 ELSE 8 END)
        WHEN 1 THEN '0' WHEN 2 THEN '00' WHEN 3 THEN '000' WHEN 4 THEN '0000' WHEN 5 THEN '00000' WHEN 6 THEN '000000' WHEN 7 THEN '0000000' ELSE '' END || serial || '-'
    ELSE '' END ||
    random || '-' || key_id || sig)) VIRTUAL;

DROP INDEX codes_created;
DROP INDEX codes_batch;
CREATE INDEX codes_batch_created ON codes (batch_id, created_at);
