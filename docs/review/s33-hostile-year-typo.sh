#!/bin/bash
# Finding (s33 hostile): 'qrdesk issue --date 0026-12-04' (a year typed short)
# is accepted. The code prints the year in two digits, so its labels read
# "261204-B0001-…", the same printed serials as today's batch; the desk keeps
# them as labels of year 26. The server refuses the batch for good
# ("repeats the serial of another code: two desks share station letter B"),
# every later 'qrdesk sync' exits 3 with that misleading message, and the
# labels are unknown to every other desk, while the issuing desk redeems them.
# Same with 9999-12-31 (prints 991231, collides with 2099-12-31) and
# 0001-01-01 (prints 010101 = 2001-01-01).
# Run from the worktree after building /tmp/hr/qrdesk and /tmp/hr/qrdesk-server.
. "$(dirname "$0")/s33-hostile-setup.sh"
today=$(date +%Y-%m-%d); typo="00${today:2}"
D d2 issue --count 2
D d2 issue --count 2 --date "$typo" --expires never        # expected: refused (year 0026); got: batch, same printed serials
D d2 sync; echo "sync rc=$? (expected 0)"

D d2 search B0001
kill $SERVER_PID
