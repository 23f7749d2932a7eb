-- Print jobs: every print is recorded with its codes, so reprints are
-- visible and a failed job can be resumed.
CREATE TABLE print_jobs (
    id          INTEGER PRIMARY KEY,
    created_at  INTEGER NOT NULL,
    finished_at INTEGER NOT NULL DEFAULT 0,
    station     TEXT    NOT NULL,
    operator    TEXT    NOT NULL DEFAULT '',
    template    TEXT    NOT NULL,
    format      TEXT    NOT NULL,              -- pdf or zpl
    printer     TEXT    NOT NULL DEFAULT '',   -- CUPS queue or host:port, '' when only saved
    output      TEXT    NOT NULL DEFAULT '',   -- file written
    codes       INTEGER NOT NULL,
    reprint     INTEGER NOT NULL DEFAULT 0,
    status      TEXT    NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done', 'failed')),
    error       TEXT    NOT NULL DEFAULT ''
) STRICT;
CREATE INDEX print_jobs_created ON print_jobs (created_at);

CREATE TABLE print_job_codes (
    job_id   INTEGER NOT NULL REFERENCES print_jobs (id),
    position INTEGER NOT NULL,
    code_id  INTEGER NOT NULL REFERENCES codes (id),
    PRIMARY KEY (job_id, position)
) STRICT, WITHOUT ROWID;
