package multidesk_test

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"qrdesk/app"
	"qrdesk/central"
	"qrdesk/deskclient"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/serverdbtest"
	"qrdesk/internal/sqlstore"
	"qrdesk/internal/testpg"
	"qrdesk/server"
	"qrdesk/serverdb"
)

// The server's migrations as they are in the repository, by engine.
const (
	sqliteMigrations   = "migrations/central"
	postgresMigrations = "migrations/central_postgres"
)

// migrateBeforeSites makes the server database at dbPath as a release from
// before sites left it: every migration of the engine numbered below the
// sites' one (0021 on SQLite, 0024 on PostgreSQL), read from the
// repository, applied by the migration runner the server uses. It returns
// the version it stopped at.
func migrateBeforeSites(t *testing.T, dbPath string, postgres bool) (*sql.DB, int) {
	t.Helper()
	dir := sqliteMigrations
	driver, dsn := "sqlite", sqlstore.DSN(dbPath, 5*time.Second)
	if postgres {
		dir, driver, dsn = postgresMigrations, "pgx", dbPath
	}
	repo := os.DirFS("../../serverdb")
	names, err := fs.Glob(repo, dir+"/*.sql")
	if err != nil || len(names) == 0 {
		t.Fatalf("the server's migrations in ../../serverdb/%s: %v", dir, err)
	}
	sites := 0
	for _, n := range names {
		if num, name, _ := strings.Cut(path.Base(n), "_"); name == "sites.sql" {
			sites, _ = strconv.Atoi(num)
		}
	}
	if sites == 0 {
		t.Fatalf("no sites migration in %s", dir)
	}
	before := fstest.MapFS{}
	last := 0
	for _, n := range names {
		v, _ := strconv.Atoi(strings.SplitN(path.Base(n), "_", 2)[0])
		if v >= sites {
			continue
		}
		data, err := fs.ReadFile(repo, n)
		if err != nil {
			t.Fatal(err)
		}
		before[n] = &fstest.MapFile{Data: data}
		last = max(last, v)
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := sqlstore.Migrate(context.Background(), db, before, dir, postgres); err != nil {
		t.Fatalf("migrating to schema %d: %v", last, err)
	}
	return db, last
}

// tables lists the tables of a database (the migrations' record left out).
func tables(t *testing.T, db *sql.DB, postgres bool) []string {
	t.Helper()
	q := `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT IN ('schema_migrations', 'schema_floor') ORDER BY name`
	if postgres {
		q = `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name NOT IN ('schema_migrations', 'schema_floor') ORDER BY table_name`
	}
	rows, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

// copyInto fills old, a database at the schema before sites, with every
// row of from, the deployment today's server wrote: each of old's tables,
// old's columns (the sites' are not there). Foreign keys are not checked
// while copying (the rows are a consistent database already); PostgreSQL's
// sequences go on after the copied ids.
func copyInto(t *testing.T, old *sql.DB, from *serverdb.DB, postgres bool) {
	t.Helper()
	ctx := context.Background()
	conn, err := old.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	off := `PRAGMA foreign_keys = OFF`
	if postgres {
		off = `SET session_replication_role = replica`
	}
	if _, err := conn.ExecContext(ctx, off); err != nil {
		t.Fatal(err)
	}
	for _, table := range tables(t, old, postgres) {
		probe, err := conn.QueryContext(ctx, `SELECT * FROM `+table+` WHERE 1 = 0`)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := probe.Columns()
		probe.Close()
		marks := make([]string, len(cols))
		for i := range marks {
			marks[i] = "?"
			if postgres {
				marks[i] = "$" + strconv.Itoa(i+1)
			}
		}
		insert := `INSERT INTO ` + table + ` (` + strings.Join(cols, ", ") + `) VALUES (` + strings.Join(marks, ", ") + `)`
		for _, vals := range serverdbtest.Of(t, from).Rows(table, cols...) {
			if _, err := conn.ExecContext(ctx, insert, vals...); err != nil {
				t.Fatalf("copying a row of %s: %v", table, err)
			}
		}
	}
	if !postgres {
		return
	}
	serials, err := conn.QueryContext(ctx, `SELECT table_name, column_name FROM information_schema.columns
		WHERE table_schema = 'public' AND column_default LIKE 'nextval%'`)
	if err != nil {
		t.Fatal(err)
	}
	var seqs [][2]string
	for serials.Next() {
		var tc [2]string
		if err := serials.Scan(&tc[0], &tc[1]); err != nil {
			t.Fatal(err)
		}
		seqs = append(seqs, tc)
	}
	serials.Close()
	for _, tc := range seqs {
		q := fmt.Sprintf(`SELECT setval(pg_get_serial_sequence('%s', '%s'), COALESCE((SELECT max(%s) FROM %s), 0) + 1, false)`, tc[0], tc[1], tc[1], tc[0])
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
}

// requests records what a server was asked and answered.
type requests struct {
	h   http.Handler
	mu  sync.Mutex
	log []string // "METHOD /path?query STATUS"
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (x *requests) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sw := &statusWriter{ResponseWriter: w}
	x.h.ServeHTTP(sw, r)
	if sw.status == 0 {
		sw.status = http.StatusOK
	}
	x.mu.Lock()
	x.log = append(x.log, fmt.Sprintf("%s %s %d", r.Method, r.URL.RequestURI(), sw.status))
	x.mu.Unlock()
}

// TestUpgradeDeploymentWithoutSites: a deployment made at the schema before
// sites (the migrations before 0021 on SQLite, 0024 on PostgreSQL, applied
// to a new database, then its stations, labels, redemptions, feed changes,
// conflict with its resolution and administrator: the rows a server wrote
// for two desks' day) is opened by today's server, which migrates it.
// Everything is in site 'main'; the administrator sees every site; the
// day's figures, the conflicts and the desks' feed positions are what they
// were; the desks, pointed at the upgraded server, go on following the
// feed from where they were (no snapshot, no feed_compacted) and learn a
// redemption made after the upgrade.
func TestUpgradeDeploymentWithoutSites(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		// The day at two desks, written by the server's own code.
		h := centraltest.New(t, dbPath, 0)
		a := h.Desk(t, "Desk 1", "A", h.Station(t, "Desk 1", "A"))
		b := h.Desk(t, "Desk 2", "B", h.Station(t, "Desk 2", "B"))
		h.Station(t, "Desk 3", "C") // enrolled, never synced
		labels := a.Issue(t, 6)
		b.Issue(t, 2)
		a.Sync(t)
		b.Sync(t)
		a.Sync(t)
		for _, r := range []struct {
			desk *centraltest.Desk
			code string
			want app.Outcome
		}{{a, labels[0], app.OutcomeRedeemed}, {b, labels[0], app.OutcomeAlreadyUsed}, {b, labels[1], app.OutcomeRedeemed}} {
			if v := r.desk.Redeem(t, r.code, "li"); v.Outcome != r.want {
				t.Fatalf("redeem %s: %+v, want %s", r.code, v, r.want)
			}
		}
		// labels[2] at both desks while they cannot reach the server.
		a.Svc.Remote, b.Svc.Remote = nil, nil
		a.Redeem(t, labels[2], "li")
		b.Redeem(t, labels[2], "wang")
		a.Svc.Remote, b.Svc.Remote = centraltest.NewClient(h, "Desk 1"), centraltest.NewClient(h, "Desk 2")
		a.Sync(t)
		b.Sync(t)
		a.Sync(t)
		if err := h.DB.AddAdmin(ctx, central.Admin{Name: "manager", CreatedAt: h.Now.Unix()}, "hash"); err != nil {
			t.Fatal(err)
		}
		list, err := h.DB.ConflictRecords(ctx, 0, math.MaxInt64)
		if err != nil || len(list) != 1 || list[0].Code != labels[2] {
			t.Fatalf("the day's conflict: %+v %v", list, err)
		}
		if err := h.DB.ResolveConflict(ctx, list[0].ID, central.Resolution{Admin: "manager", Note: "two parcels, checked", At: h.Now.Unix()}); err != nil {
			t.Fatal(err)
		}
		day := app.Day(h.Now)
		from, to := day.Unix(), day.AddDate(0, 0, 1).Unix()
		wantDay, err := h.DB.DayActivity(ctx, from, to)
		if err != nil {
			t.Fatal(err)
		}
		wantConflicts, err := h.DB.ConflictRecords(ctx, 0, math.MaxInt64)
		if err != nil {
			t.Fatal(err)
		}
		wantDesks, wantHead, err := h.DB.Desks(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// What a person would count on the day: Desk 1 issued 6 and
		// redeemed labels 0 and 2 (uploaded first); Desk 2 issued 2,
		// redeemed label 1, was refused label 0, and its label 2 is the
		// conflict.
		got := map[string]string{}
		for _, k := range wantDay.Desks {
			got[k.Station] = fmt.Sprintf("issued %d redeemed %d already_used %d conflicts %d", k.Issued, k.Redeemed, k.Refused["already_used"], k.Conflicts)
		}
		if want := map[string]string{"Desk 1": "issued 6 redeemed 2 already_used 0 conflicts 0", "Desk 2": "issued 2 redeemed 1 already_used 1 conflicts 1"}; !reflect.DeepEqual(got, want) {
			t.Fatalf("the day before the upgrade: %v, want %v", got, want)
		}

		// The same rows in a database at the schema before sites.
		oldPath := dbPath(t)
		postgres := strings.HasPrefix(oldPath, "postgres")
		old, version := migrateBeforeSites(t, oldPath, postgres)
		for _, table := range tables(t, old, postgres) {
			if table == "sites" || table == "admin_sites" {
				t.Fatalf("the database at schema %d already has %s", version, table)
			}
		}
		copyInto(t, old, h.DB, postgres)
		var stationRows int
		if err := old.QueryRow(`SELECT count(*) FROM stations`).Scan(&stationRows); err != nil || stationRows != 3 {
			t.Fatalf("the old database's stations: %d %v", stationRows, err)
		}
		if _, err := old.Exec(`SELECT site FROM stations`); err == nil {
			t.Fatal("the old database's stations have a site")
		}
		old.Close()

		// Today's server opens it: migrated, one site 'main'.
		up, err := serverdb.Open(ctx, oldPath)
		if err != nil {
			t.Fatal(err)
		}
		defer up.Close()
		if schema := serverdbtest.Of(t, up).SchemaVersion(); schema != serverdb.SchemaVersion(postgres) {
			t.Fatalf("schema after the upgrade: %d, want %d", schema, serverdb.SchemaVersion(postgres))
		}
		sites, err := up.Sites(ctx)
		if err != nil || len(sites) != 1 || sites[0].Name != central.DefaultSite || sites[0].Stations != 3 {
			t.Fatalf("sites after the upgrade: %+v %v, want main with the 3 stations", sites, err)
		}
		for q, want := range map[string]int{
			`SELECT count(*) FROM codes WHERE site <> ?`:                      0,
			`SELECT count(*) FROM changes WHERE site <> ?`:                    0,
			`SELECT count(*) FROM stations WHERE site <> ? OR site_from <> 0`: 0,
			`SELECT count(*) FROM codes WHERE site = ?`:                       8,
		} {
			if n := centraltest.Count(t, up, q, sites[0].ID); n != want {
				t.Errorf("%s: %d, want %d", q, n, want)
			}
		}
		if scope, err := up.AdminScope(ctx, "manager"); err != nil || !scope.All {
			t.Errorf("the administrator from before: %+v %v, want every site", scope, err)
		}
		if gotDay, err := up.DayActivity(ctx, from, to); err != nil || !reflect.DeepEqual(gotDay, wantDay) {
			t.Errorf("the day after the upgrade:\n got %+v %v\nwant %+v", gotDay, err, wantDay)
		}
		if gotConflicts, err := up.ConflictRecords(ctx, 0, math.MaxInt64); err != nil || !reflect.DeepEqual(gotConflicts, wantConflicts) {
			t.Errorf("the conflicts after the upgrade:\n got %+v %v\nwant %+v", gotConflicts, err, wantConflicts)
		}
		gotDesks, gotHead, err := up.Desks(ctx)
		if err != nil || gotHead != wantHead || len(gotDesks) != len(wantDesks) {
			t.Fatalf("desks after the upgrade: %+v head %d %v, want %d desks, head %d", gotDesks, gotHead, err, len(wantDesks), wantHead)
		}
		for i, d := range gotDesks {
			w := wantDesks[i]
			if d.Name != w.Name || d.FeedAck != w.FeedAck || d.Letter != w.Letter || d.Site != central.DefaultSite {
				t.Errorf("desk after the upgrade %s (letter %s, read to %d, site %s), want %s (letter %s, read to %d, site main)", d.Name, d.Letter, d.FeedAck, d.Site, w.Name, w.Letter, w.FeedAck)
			}
		}

		// The desks follow the upgraded server from where they were.
		rec := &requests{h: (&server.API{Store: up, Log: centraltest.Discard, Now: func() time.Time { return h.Now }}).Handler()}
		srv := httptest.NewServer(rec)
		defer srv.Close()
		a.Svc.Remote = deskclient.New(srv.URL, "qrd_test_Desk_1")
		b.Svc.Remote = deskclient.New(srv.URL, "qrd_test_Desk_2")
		if v := b.Redeem(t, labels[3], "wang"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("Desk 2 after the upgrade: %+v", v)
		}
		if n := centraltest.Count(t, up, `SELECT count(*) FROM codes WHERE code = ? AND status = 'used' AND used_station = 'Desk 2'`, labels[3]); n != 1 {
			t.Fatal("Desk 2's redemption after the upgrade was not decided by the upgraded server (online)")
		}
		a.Sync(t)
		b.Sync(t)
		if n := a.Count(t, `SELECT count(*) FROM codes WHERE code = ? AND status = 'used'`, labels[3]); n != 1 {
			t.Error("Desk 1 did not learn, by the feed, Desk 2's redemption made after the upgrade")
		}
		if n := a.Count(t, `SELECT count(*) FROM codes WHERE code IN (?, ?, ?) AND status = 'used'`, labels[0], labels[1], labels[2]); n != 3 {
			t.Errorf("Desk 1 holds %d of the 3 labels used before the upgrade as used", n)
		}
		rec.mu.Lock()
		log := append([]string(nil), rec.log...)
		rec.mu.Unlock()
		followed := 0
		for _, l := range log {
			switch {
			case strings.Contains(l, "/v1/snapshot") || strings.HasSuffix(l, " 410") || strings.HasSuffix(l, " 409"):
				t.Errorf("a desk started over after the upgrade: %s", l)
			case strings.HasPrefix(l, "GET /v1/changes?after=") && strings.HasSuffix(l, " 200") && !strings.HasPrefix(l, "GET /v1/changes?after=0"):
				followed++
			}
		}
		if followed < 2 {
			t.Errorf("the desks' feed reads after the upgrade: %q, want both following from their position", log)
		}
	})
}
