-- Restore detection (the desk's half): every write number the server gave
-- this desk (its current server station, sync_state 'server_station'), with
-- what it numbered: an event id, or a batch piece. A number the server
-- gives again for something else, or a station counter below the highest
-- number here, means the server lost history: the desk sends everything
-- again and starts over.
CREATE TABLE server_writes (
    number INTEGER PRIMARY KEY,
    key    TEXT    NOT NULL
) STRICT;
