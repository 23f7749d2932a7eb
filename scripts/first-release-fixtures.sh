#!/bin/sh
# Makes the upgrade fixtures (internal/multidesk/testdata/upgrade/first-release/): the
# databases of the FIRST release (commit 2264f38, the end of 2026-11-29:
# stations without letters, before versions and restore detection), which
# TestUpgradeFromFirstRelease opens with today's code. Run once; the output
# is committed. Usage:
#   git worktree add --detach /tmp/first 2264f38
#   (cd /tmp/first && go build -tags qrdesk_nogui -o /tmp/bin/qrdesk . &&
#    CGO_ENABLED=0 go build -o /tmp/bin/qrdesk-server ./cmd/qrdesk-server)
#   sh scripts/first-release-fixtures.sh /tmp/bin OUTDIR
# OUTDIR gets desk1.db, desk2.db, qrdesk.key (both desks' key ring),
# central.db (the server's SQLite database) and desk1.token, desk2.token
# (the stations' tokens: test secrets of this fixture only).
#   PG=postgres://postgres@127.0.0.1:15499/qrdesk_first sh scripts/first-release-fixtures.sh /tmp/bin OUTDIR/postgres
# runs the same days on an empty PostgreSQL database instead and writes its
# dump (central.pgsql: pg_dump --inserts, loadable statement by statement)
# beside the desks'.
set -eu
bin=$1
out=$2
work=$(mktemp -d)
trap 'kill $srv 2>/dev/null || true; [ -n "${KEEP_WORK:-}" ] || rm -rf "$work"' EXIT
port=$((20000 + $$ % 20000))
url=http://127.0.0.1:$port
central=${PG:-$work/central.db}
server() { "$bin/qrdesk-server" "$@" --db "$central"; }
d1() { "$bin/qrdesk" "$@" --db "$work/desk1/qrdesk.db" --key-file "$work/desk1/qrdesk.key"; }
d2() { "$bin/qrdesk" "$@" --db "$work/desk2/qrdesk.db" --key-file "$work/desk2/qrdesk.key"; }
start() {
	"$bin/qrdesk-server" serve --db "$central" --listen 127.0.0.1:$port 2>>"$work/server.log" &
	srv=$!
	for _ in $(seq 100); do curl -fs "$url/v1/health" >/dev/null 2>&1 && return 0; sleep 0.1; done
	echo "server did not start" >&2
	exit 1
}
stop() { kill "$srv"; wait "$srv" || true; }

t1=$(server station add "Desk 1" | tail -n 1)
t2=$(server station add "Desk 2" | tail -n 1)
mkdir -p "$work/desk1" "$work/desk2"
d1 init >/dev/null
cp "$work/desk1/qrdesk.key" "$work/desk2/qrdesk.key" # one key ring
d2 init >/dev/null
d1 settings --station-name "Desk 1" --station-id A --prefix WH --default-operator li --expires never \
	--label-title 提货码 --serial-digits 4 --qr-ec Q --configured true --operator setup >/dev/null
d2 settings --station-name "Desk 2" --station-id B --prefix WH --default-operator wang --expires never \
	--daily 40 --offset-x 1.5 --configured true --operator setup >/dev/null
start
d1 sync --server "$url" --token "$t1" >/dev/null
d2 sync --server "$url" --token "$t2" >/dev/null
c1=$(d1 issue --count 8 --ref "PO-1" --json | tr -d ' \n' | sed 's/.*"codes":\[\([^]]*\)\].*/\1/' | tr -d '"' | tr ',' '\n')
d2 issue --count 4 --ref "PO-2" --quiet >/dev/null
d1 sync >/dev/null
d2 sync >/dev/null
first() { echo "$c1" | sed -n "${1}p"; }
d1 redeem "$(first 1)" --operator li >/dev/null              # online at Desk 1
d2 redeem "$(first 2)" --operator wang >/dev/null            # online at Desk 2, a Desk 1 label
d1 disable "$(first 3)" --reason "torn label" --operator li >/dev/null
# On PostgreSQL the first release's server answered every upload of events
# (/v1/events) with 500, a syntax error near WHERE: the disable stays in
# Desk 1's outbox, as it did at every such deployment, and no offline
# redemption below is made there.
d1 sync >/dev/null || [ -n "${PG:-}" ]
d2 sync >/dev/null
stop
# Both desks offline: the same label at both (a conflict), another at one.
if [ -z "${PG:-}" ]; then
	d1 redeem "$(first 4)" --operator li >/dev/null
	d2 redeem "$(first 4)" --operator wang >/dev/null
	d2 redeem "$(first 5)" --operator wang >/dev/null
	start
	d1 sync >/dev/null
	d2 sync >/dev/null
	d1 sync >/dev/null
	stop
fi
mkdir -p "$out"
# Whole copies (the WAL's pages too), as the processes left them.
for f in desk1 desk2; do
	sqlite3 "$work/$f/qrdesk.db" ".backup '$out/$f.db'"
done
if [ -n "${PG:-}" ]; then
	pg_dump --inserts --no-owner --no-privileges --file="$out/central.pgsql" "$PG"
else
	sqlite3 "$work/central.db" ".backup '$out/central.db'"
fi
cp "$work/desk1/qrdesk.key" "$out/qrdesk.key"
echo "$t1" >"$out/desk1.token"
echo "$t2" >"$out/desk2.token"
echo "fixtures written to $out"
