package multidesk_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/deskclient"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/serverdbtest"
	"qrdesk/internal/testpg"
	"qrdesk/server"
)

// TestDatabaseRefusingWrites: a server whose database answers reads and
// refuses writes (a read-only SQLite file, a read-only PostgreSQL) is not
// "unreachable": the desk decides alone, as with no answer, but says the
// server answered with an error and which; /readyz fails; /metrics counts
// the failed writes.
func TestDatabaseRefusingWrites(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(testing.TB) string) {
		ctx := context.Background()
		var path string
		h := centraltest.New(t, func(tb testing.TB) string { path = dbPath(tb); return path }, 0)
		token := h.Station(t, "Desk A", "A")
		d := h.Desk(t, "Desk A", "A", token)
		codes := d.Issue(t, 2)
		d.Sync(t)

		ro := serverdbtest.OpenRefusingWrites(t, path)
		now := func() time.Time { return h.Now }
		api := &server.API{Store: ro, Log: centraltest.Discard, Now: now, Metrics: server.NewMetrics(ro, now)}
		srv := httptest.NewServer(api.Handler())
		t.Cleanup(srv.Close)
		d.Svc.Remote = deskclient.New(srv.URL, token)

		t.Run("DeskDecidesAloneAndSaysWhich", func(t *testing.T) {
			if v := d.Redeem(t, codes[0], "ana"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("redeem with the server failing: got %s, want %s (decided here)", v.Outcome, app.OutcomeRedeemed)
			}
			_, err := d.Svc.Sync(ctx)
			if !app.IsTransient(err) {
				t.Fatalf("sync: got %v, want an error that lets the desk decide alone", err)
			}
			sf := app.ServerFailed(err)
			if sf == nil {
				t.Fatalf("sync: got %q, want the server's error answer (not %q)", err, app.ErrTransient)
			}
			if sf.Status != http.StatusServiceUnavailable || sf.Code != app.FailedDatabase || !strings.Contains(sf.Message, "read-only") {
				t.Errorf("server failure: got %d %s %q, want 503 %s saying the database is read-only", sf.Status, sf.Code, sf.Message, app.FailedDatabase)
			}
			if strings.Contains(err.Error(), "could not be reached") {
				t.Errorf("sync error %q says the server could not be reached: it answered", err)
			}
			t.Logf("desk: %v", err)
		})
		t.Run("NotReady", func(t *testing.T) {
			status, body := get(t, srv.URL+"/readyz")
			if status != http.StatusServiceUnavailable || !strings.Contains(body, "takes no writes") {
				t.Errorf("readyz on the read-only database: got %d %s, want 503 saying it takes no writes", status, body)
			}
			t.Logf("readyz: %d %s", status, body)
			if status, body := get(t, h.URL+"/readyz"); status != http.StatusOK {
				t.Errorf("readyz on the writable handle: got %d %s, want 200", status, body)
			}
		})
		t.Run("MetricCountsWriteFailures", func(t *testing.T) {
			_, body := get(t, srv.URL+"/metrics")
			for _, want := range []string{
				`qrdesk_db_write_failures_total{cause="read_only",route="POST /v1/redeem"} 1`,
				`qrdesk_db_write_failures_total{cause="read_only",route="POST /v1/enrol"} 1`, // the sync's first request
			} {
				if !strings.Contains(body, want) {
					t.Errorf("metrics lack %s; got:\n%s", want, grepLines(body, "qrdesk_db_write"))
				}
			}
		})
	})
}

func get(t testing.TB, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
