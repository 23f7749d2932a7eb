#!/bin/bash
# s33 hostile review: a SQLite (or PostgreSQL with PGURL=...) qrdesk-server on
# 127.0.0.1:$PORT and desks d1 (A, main), d2 (B, main), n1 (N, North) in
# $R/<desk>, sharing one key file. Source it: . docs/review/s33-hostile-setup.sh
set -u
R=${R:-/tmp/hr/run}
BIN=${BIN:-/tmp/hr}
PORT=${PORT:-18491}
rm -rf "$R"; mkdir -p "$R"
DB=${PGURL:-$R/server.db}
S() { "$BIN/qrdesk-server" "$@" --db "$DB"; }
D() { local d=$1; shift; QRDESK_HOME="$R/$d" "$BIN/qrdesk" "$@"; }
S site add North >/dev/null
for x in "d1 A main" "d2 B main" "n1 N North"; do
  set -- $x
  mkdir -p "$R/$1"
  S station add "$1" --letter "$2" --site "$3" | tail -1 > "$R/$1.token"
done
QRDESK_HOME="$R/d1" "$BIN/qrdesk" init >/dev/null
for d in d2 n1; do cp "$R/d1/qrdesk.key" "$R/$d/"; chmod 600 "$R/$d/qrdesk.key"; D $d init >/dev/null; done
D d1 settings --station-id A --station-name d1 >/dev/null
D d2 settings --station-id B --station-name d2 >/dev/null
D n1 settings --station-id N --station-name n1 >/dev/null
"$BIN/qrdesk-server" serve --db "$DB" --listen 127.0.0.1:$PORT 2>"$R/server.log" &
SERVER_PID=$!
sleep 1
for d in d1 d2 n1; do D $d sync --server http://127.0.0.1:$PORT --token-file "$R/$d.token"; done
