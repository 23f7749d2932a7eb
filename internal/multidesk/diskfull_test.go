package multidesk_test

import (
	"context"
	"database/sql"
	"net/http"
	"strings"
	"testing"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// TestPostgresDiskFullIsTold: PostgreSQL's disk fills up. Its readiness
// probe, a one-row update, still passes (PostgreSQL rewrites the row in
// its page), but every redemption's guarded UPDATE … RETURNING fails with
// SQLSTATE 53100 (disk_full), raised here by a trigger. That failure came
// back through the row's Scan as a plain 500: the desks were told
// "internal error", the write-failure metric stayed 0 and /readyz said
// 200. Now the desk is told the server cannot store (503 database), the
// metric counts it, /readyz says not ready until a desk's write goes
// through again, and nothing the desk decided meanwhile is lost.
// PostgreSQL only: SQLite's full disk fails the statement itself, which
// was translated already (TestDatabaseRefusingWrites).
func TestPostgresDiskFullIsTold(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := testpg.URL(t)
	h := centraltest.New(t, func(testing.TB) string { return url }, 0)
	token := h.Station(t, "Desk A", "A")
	d := h.Desk(t, "Desk A", "A", token)
	codes := d.Issue(t, 2)
	d.Sync(t)

	raw, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	for _, q := range []string{
		`CREATE FUNCTION disk_full() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'could not extend file: No space left on device (test)' USING ERRCODE = 'disk_full'; END $$`,
		`CREATE TRIGGER disk_full BEFORE UPDATE ON codes FOR EACH ROW WHEN (NEW.status = 'used') EXECUTE FUNCTION disk_full()`,
	} {
		if _, err := raw.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}

	if v := d.Redeem(t, codes[0], "ana"); v.Outcome != app.OutcomeRedeemed {
		t.Fatalf("redeem while the server's disk is full: %s, want redeemed (decided at the desk)", v.Outcome)
	}
	_, err = d.Svc.Sync(ctx)
	sf := app.ServerFailed(err)
	if sf == nil || sf.Status != http.StatusServiceUnavailable || sf.Code != app.FailedDatabase || !strings.Contains(sf.Message, "disk is full") {
		t.Errorf("sync while the disk is full: %v, want 503 %s saying PostgreSQL's disk is full", err, app.FailedDatabase)
	}
	_, metrics := get(t, h.URL+"/metrics")
	for _, want := range []string{
		`qrdesk_db_write_failures_total{cause="disk_full",route="POST /v1/redeem"} 1`,
		`qrdesk_db_write_failures_total{cause="disk_full",route="POST /v1/events"} 1`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %s; got:\n%s", want, grepLines(metrics, "qrdesk_db_write"))
		}
	}
	if status, body := get(t, h.URL+"/readyz"); status != http.StatusServiceUnavailable || !strings.Contains(body, "refused a desk's write") {
		t.Errorf("readyz while the desks' writes fail: %d %s, want 503 saying the database refused a desk's write", status, body)
	}

	// Space again: the desk's waiting redemption goes up, and the server
	// is ready once a desk's write went through.
	if _, err := raw.ExecContext(ctx, `DROP TRIGGER disk_full ON codes`); err != nil {
		t.Fatal(err)
	}
	d.Sync(t)
	if got := h.Server(t).CountLabel(codes[0], "used"); got != 1 {
		t.Errorf("the redemption decided at the desk while the disk was full is not at the server")
	}
	if status, body := get(t, h.URL+"/readyz"); status != http.StatusOK {
		t.Errorf("readyz after a desk's write went through: %d %s, want 200", status, body)
	}
}
