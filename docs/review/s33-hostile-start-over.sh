#!/bin/bash
# Finding (s33 hostile): a desk whose database is lost is told "to start
# this desk over on purpose, move sync.json away first". Doing exactly that,
# then init + settings (same letter) and issuing before the first sync,
# prints serial B0001 again (the server holds B0001-B0002 of this desk):
# the batch is refused for good and every later sync exits 3 ("two desks
# share station letter B"). Expected: issuing with serials refused until the
# desk has synced (as after 'qrdesk restore'), or the message saying so.
# Both engines (PGURL=postgres://... for PostgreSQL, a fresh database).
. "$(dirname "$0")/s33-hostile-setup.sh"
D d2 issue --count 2
D d2 sync
mkdir -p "$R/aside"; mv "$R/d2/qrdesk.db" "$R/aside/"
D d2 stats                                   # refused: says to move sync.json away to start over
mv "$R/d2/sync.json" "$R/aside/"
D d2 init
D d2 settings --station-id B --station-name d2 >/dev/null
D d2 issue --count 1                         # got: serial B0001 again
D d2 sync --server http://127.0.0.1:$PORT --token-file "$R/d2.token"; echo "sync rc=$? (expected 0)"
kill $SERVER_PID
