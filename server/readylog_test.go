package server_test

import (
	"context"
	"database/sql"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"qrdesk/internal/centraltest"
	"qrdesk/internal/sqlstore"
	"qrdesk/internal/testpg"
)

// TestReadyzLogsChangesOnly: a load balancer asks /readyz every few
// seconds; while the database takes no writes every answer is 503, but the
// log says so once, and once again when it takes writes again, not at
// every probe. The write fails in the database itself (a trigger refusing
// the probe's update, as a full disk would).
func TestReadyzLogsChangesOnly(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		var path string
		h := centraltest.New(t, func(t testing.TB) string { path = dbPath(t); return path }, 0)
		var logged lockedBuffer
		h.API.Log = slog.New(slog.NewTextHandler(&logged, nil))
		probe := func(want int) {
			t.Helper()
			h.API.ProbeAgainForTest() // a real write at every probe, as when they are seconds apart
			if status, body := getReady(t, h.URL); status != want {
				t.Fatalf("/readyz: %d %v, want %d", status, body, want)
			}
		}
		probe(http.StatusOK) // the probe's row exists from here on

		postgres := strings.HasPrefix(path, "postgres")
		driver, dsn := "sqlite", sqlstore.DSN(path, sqlstore.BusyTimeout)
		fail := []string{`CREATE TRIGGER probe_fails BEFORE UPDATE ON deployment BEGIN SELECT RAISE(ABORT, 'disk full (test)'); END`}
		heal := `DROP TRIGGER probe_fails`
		if postgres {
			driver, dsn = "pgx", path
			fail = []string{
				`CREATE FUNCTION probe_fails() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk full (test)'; END $$`,
				`CREATE TRIGGER probe_fails BEFORE UPDATE ON deployment FOR EACH ROW EXECUTE FUNCTION probe_fails()`,
			}
			heal = `DROP TRIGGER probe_fails ON deployment`
		}
		raw, err := sql.Open(driver, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer raw.Close()
		for _, q := range fail {
			if _, err := raw.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		for range 5 {
			probe(http.StatusServiceUnavailable)
		}
		if _, err := raw.ExecContext(ctx, heal); err != nil {
			t.Fatal(err)
		}
		for range 3 {
			probe(http.StatusOK)
		}

		log := logged.String()
		var lines []string // the readiness lines, not the access log's
		for _, l := range strings.Split(strings.TrimSpace(log), "\n") {
			if !strings.Contains(l, "msg=request ") {
				lines = append(lines, l)
			}
		}
		if len(lines) != 2 || !strings.Contains(lines[0], "not ready: the database takes no writes") || !strings.Contains(lines[0], "disk full (test)") ||
			!strings.Contains(lines[1], "ready again") || !strings.Contains(lines[1], `was="the database takes no writes"`) {
			t.Fatalf("log of 5 failing probes, then 3 good ones:\n%s\nwant one warning with the database's error, then one line saying it is ready again", log)
		}
	})
}
