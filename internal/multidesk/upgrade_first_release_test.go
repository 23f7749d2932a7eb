package multidesk_test

import (
	"context"
	"database/sql"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/deskclient"
	"qrdesk/internal/serverdbtest"
	"qrdesk/internal/sqlstore"
	"qrdesk/internal/testpg"
	"qrdesk/server"
	"qrdesk/serverdb"
	"qrdesk/store"
)

// firstRelease holds databases made by the first release (commit 2264f38,
// scripts/first-release-fixtures.sh): two desks, A and B, of one key ring,
// and the server's SQLite database, after online and offline redemptions,
// a disable and a double use offline (a conflict).
const firstRelease = "testdata/upgrade/first-release"

// fixtureState is what a database of the first release holds, read with
// plain SQL before today's code opens it.
type fixtureState struct {
	status    map[string]string // code → status
	used      map[string]string // code → the station of its redemption (server)
	settings  map[string]string
	conflicts []string // codes
	stations  []string
}

func readFixture(t *testing.T, db *sql.DB, central bool) fixtureState {
	t.Helper()
	s := fixtureState{status: map[string]string{}, used: map[string]string{}, settings: map[string]string{}}
	q := func(query string, scan func(*sql.Rows) error) {
		rows, err := db.Query(query)
		if err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		defer rows.Close()
		for rows.Next() {
			if err := scan(rows); err != nil {
				t.Fatal(err)
			}
		}
	}
	q(`SELECT code, status FROM codes`, func(r *sql.Rows) error {
		var c, st string
		err := r.Scan(&c, &st)
		s.status[c] = st
		return err
	})
	q(`SELECT code FROM conflicts ORDER BY code`, func(r *sql.Rows) error {
		var c string
		err := r.Scan(&c)
		s.conflicts = append(s.conflicts, c)
		return err
	})
	if central {
		q(`SELECT code, used_station FROM codes WHERE status = 'used'`, func(r *sql.Rows) error {
			var c, st string
			err := r.Scan(&c, &st)
			s.used[c] = st
			return err
		})
		q(`SELECT name FROM stations ORDER BY name`, func(r *sql.Rows) error {
			var n string
			err := r.Scan(&n)
			s.stations = append(s.stations, n)
			return err
		})
	} else {
		q(`SELECT key, value FROM settings`, func(r *sql.Rows) error {
			var k, v string
			err := r.Scan(&k, &v)
			s.settings[k] = v
			return err
		})
	}
	return s
}

// readFixtureFile is readFixture of a SQLite file, opened read-only.
func readFixtureFile(t *testing.T, path string, central bool) fixtureState {
	t.Helper()
	db, err := sql.Open("sqlite", sqlstore.ReadOnlyDSN(path))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	return readFixture(t, db, central)
}

// loadPGDump runs a pg_dump --inserts file on the empty database at url,
// statement by statement on one connection (psql's meta-commands, lines
// starting with a backslash, are left out).
func loadPGDump(t *testing.T, file, url string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "\\") {
			b.WriteString(line + "\n")
		}
	}
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(context.Background(), b.String()); err != nil {
		t.Fatalf("loading %s: %v", file, err)
	}
}

// copyFixture copies a fixture file of dir into to (mode 0600: a key file
// must be).
func copyFixture(t *testing.T, dir, name, to string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(to, name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestUpgradeFromFirstRelease opens the first release's databases with
// today's code (the server first, as docs/deploy.md says), on SQLite and
// on PostgreSQL (a dump of the same days on the first release's
// PostgreSQL server): every code, status, conflict, setting and station
// survives, each station gets the letter of its codes, and the upgraded
// desks issue, redeem and sync with the upgraded server, and all agree.
func TestUpgradeFromFirstRelease(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		upgradeFromFirstRelease(t, dbPath(t))
	})
}

func upgradeFromFirstRelease(t *testing.T, path string) {
	ctx := context.Background()
	dir := t.TempDir()
	fixture, want := firstRelease, struct{ conflicts, used int }{1, 4}
	var central fixtureState
	var last int64
	if strings.HasPrefix(path, "postgres") {
		// The first release's PostgreSQL server refused every upload of
		// events (scripts/first-release-fixtures.sh): only online
		// redemptions reached it, and Desk 1's disable waits in its outbox.
		fixture, want = filepath.Join(firstRelease, "postgres"), struct{ conflicts, used int }{0, 2}
		loadPGDump(t, filepath.Join(fixture, "central.pgsql"), path)
		raw, err := sql.Open("pgx", path)
		if err != nil {
			t.Fatal(err)
		}
		central = readFixture(t, raw, true)
		raw.QueryRow(`SELECT max(created_at) FROM codes`).Scan(&last)
		raw.Close()
	} else {
		central = readFixtureFile(t, filepath.Join(fixture, "central.db"), true)
		raw, err := sql.Open("sqlite", sqlstore.ReadOnlyDSN(filepath.Join(fixture, "central.db")))
		if err != nil {
			t.Fatal(err)
		}
		raw.QueryRow(`SELECT max(created_at) FROM codes`).Scan(&last)
		raw.Close()
		path = copyFixture(t, fixture, "central.db", dir)
	}
	desks := map[string]fixtureState{}
	for _, name := range []string{"desk1", "desk2"} {
		desks[name] = readFixtureFile(t, filepath.Join(fixture, name+".db"), false)
	}
	// What the script made: a check that the fixture is the one described.
	if len(central.status) != 12 || len(central.conflicts) != want.conflicts || len(central.used) != want.used || strings.Join(central.stations, ",") != "Desk 1,Desk 2" {
		t.Fatalf("the fixture is not what scripts/first-release-fixtures.sh makes: %d codes, %d conflicts, %d used, stations %v",
			len(central.status), len(central.conflicts), len(central.used), central.stations)
	}
	// The clock: an hour after the fixture's last label, whatever today is.
	now := time.Unix(last, 0).Add(time.Hour)

	// The server is upgraded first.
	sdb, err := serverdb.Open(ctx, path)
	if err != nil {
		t.Fatalf("today's server cannot open the first release's database: %v", err)
	}
	defer sdb.Close()
	api := &server.API{Store: sdb, Log: slog.New(slog.DiscardHandler), Now: func() time.Time { return now }}
	srv := httptest.NewServer(api.Handler())
	defer srv.Close()
	stations, err := sdb.Stations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	letters := map[string]string{}
	for _, s := range stations {
		letters[s.Name] = s.Letter
	}
	if letters["Desk 1"] != "A" || letters["Desk 2"] != "B" || len(letters) != 2 {
		t.Errorf("after the upgrade the stations' letters are %v, want Desk 1 A and Desk 2 B (from their codes)", letters)
	}
	for code, want := range central.status {
		status, station := serverdbtest.Of(t, sdb).StatusAndStation(code)
		if status != want || station != central.used[code] {
			t.Errorf("server: %s is %s at %q after the upgrade, was %s at %q", code, status, station, want, central.used[code])
		}
	}
	list, err := sdb.Conflicts(ctx, 0, now.Unix()+1)
	if err != nil {
		t.Fatal(err)
	}
	var conflictCodes []string
	for _, k := range list {
		conflictCodes = append(conflictCodes, k.Code)
	}
	sort.Strings(conflictCodes)
	if strings.Join(conflictCodes, ",") != strings.Join(central.conflicts, ",") {
		t.Errorf("server conflicts after the upgrade: %v, were %v", conflictCodes, central.conflicts)
	}

	// Then the desks.
	keyFile := copyFixture(t, fixture, "qrdesk.key", dir)
	open := func(name string) *app.Service {
		t.Helper()
		db, err := store.Open(ctx, copyFixture(t, fixture, name+".db", dir))
		if err != nil {
			t.Fatalf("today's qrdesk cannot open the first release's %s: %v", name, err)
		}
		t.Cleanup(func() { db.Close() })
		keys, err := app.LoadKeys(keyFile, false)
		if err != nil {
			t.Fatal(err)
		}
		token, err := os.ReadFile(filepath.Join(fixture, name+".token"))
		if err != nil {
			t.Fatal(err)
		}
		db.UseClock(func() time.Time { return now })
		svc := app.NewService(db, keys, slog.New(slog.NewTextHandler(io.Discard, nil)))
		svc.Remote = deskclient.New(srv.URL, strings.TrimSpace(string(token)))
		svc.Now = func() time.Time { return now }
		return svc
	}
	svcs := map[string]*app.Service{"desk1": open("desk1"), "desk2": open("desk2")}
	for name, svc := range svcs {
		before := desks[name]
		for code, want := range before.status {
			v, err := svc.Check(ctx, code)
			if err != nil {
				t.Fatalf("%s: check %s: %v", name, code, err)
			}
			if string(v.Status) != want {
				t.Errorf("%s: %s is %s after the upgrade, was %s", name, code, v.Status, want)
			}
		}
		set, err := svc.Settings(ctx)
		if err != nil {
			t.Fatalf("%s: settings: %v", name, err)
		}
		got := map[string]string{"station_name": set.StationName, "prefix": set.Prefix, "operator": set.Operator,
			"label_title": set.LabelTitle, "qr_ec": set.QREC, "station_id": set.StationID}
		for k, want := range before.settings {
			if g, checked := got[k]; checked && g != want {
				t.Errorf("%s: setting %s is %q after the upgrade, was %q", name, k, g, want)
			}
		}
		if name == "desk2" && (set.Daily != 40 || set.OffsetX != 1.5) {
			t.Errorf("desk2: daily %d, offset_x %v after the upgrade, want 40 and 1.5", set.Daily, set.OffsetX)
		}
		conflicts, err := svc.Conflicts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var codes []string
		for _, k := range conflicts {
			codes = append(codes, k.Code)
		}
		sort.Strings(codes)
		if strings.Join(codes, ",") != strings.Join(before.conflicts, ",") {
			t.Errorf("%s: conflicts %v after the upgrade, were %v", name, codes, before.conflicts)
		}
	}

	// Issue, redeem and sync with today's code.
	d1, d2 := svcs["desk1"], svcs["desk2"]
	for _, svc := range []*app.Service{d1, d2} {
		if _, err := svc.Sync(ctx); err != nil {
			t.Fatalf("the first sync after the upgrade: %v", err)
		}
	}
	_, issued, err := d1.Issue(ctx, app.IssueRequest{Count: 3})
	if err != nil {
		t.Fatalf("issue after the upgrade: %v", err)
	}
	if _, err := d1.Sync(ctx); err != nil {
		t.Fatalf("sync of the new batch: %v", err)
	}
	if _, err := d2.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	fresh := issued[0].String()
	var oldUnused string
	for code, st := range central.status {
		if st == "unused" && strings.Contains(code, "-B0") {
			oldUnused = code
		}
	}
	for _, r := range []struct {
		svc  *app.Service
		code string
		want app.Outcome
	}{
		{d2, fresh, app.OutcomeRedeemed},     // today's label of Desk 1 at Desk 2
		{d1, oldUnused, app.OutcomeRedeemed}, // a first-release label of Desk 2 at Desk 1
		{d1, fresh, app.OutcomeAlreadyUsed},  // once, across desks
	} {
		v, err := r.svc.Redeem(ctx, r.code, "li")
		if err != nil || v.Outcome != r.want {
			t.Errorf("redeem %s after the upgrade: %v %v, want %s", r.code, v.Outcome, err, r.want)
		}
	}
	for _, svc := range []*app.Service{d1, d2, d1} {
		st, err := svc.Sync(ctx)
		if err != nil || st.Waiting != 0 || st.Rejected != 0 {
			t.Fatalf("sync after the upgrade: %+v %v", st, err)
		}
	}
	for _, code := range []string{fresh, oldUnused} {
		if status := serverdbtest.Of(t, sdb).Status(code); status != "used" {
			t.Errorf("%s is %s at the server after the syncs, want used", code, status)
		}
	}
	// Every label: both desks agree with the server (Desk 1's disable that
	// waited through the upgrade on PostgreSQL included).
	for code := range central.status {
		status := serverdbtest.Of(t, sdb).Status(code)
		for name, svc := range svcs {
			v, err := svc.Check(ctx, code)
			if err != nil || string(v.Status) != status {
				t.Errorf("%s after the syncs: %s at %s (%v), %s at the server", code, v.Status, name, err, status)
			}
		}
		if before := desks["desk1"].status[code]; before == "disabled" && status != "disabled" {
			t.Errorf("%s, disabled at Desk 1 before the upgrade, is %s at the server after its sync", code, status)
		}
	}
}
