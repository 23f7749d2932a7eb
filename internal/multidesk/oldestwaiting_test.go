package multidesk_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
	"qrdesk/server"
)

// TestOldestWaitingReachesTheOperator: a desk whose undo waits for a
// server upgrade (the server does not know undo) tells the server, with
// its figures, how long that event has waited; the server's record of the
// desk says so. A server from before that figure (it refuses a report
// with a field it does not know, 400) still gets the desk's figures
// without it, and the desk stops sending it there. Both engines.
func TestOldestWaitingReachesTheOperator(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		for _, older := range []bool{false, true} {
			g := newRestorable(t, dbPath)
			g.kinds = protocol.BaseKinds // a server from before undo: the undo waits at the desk
			g.serve()
			g.API.Metrics = server.NewMetrics(g.DB, func() time.Time { return g.Now })
			refused := 0
			if older {
				// What a server before the field answers (its decoder
				// refuses unknown fields).
				g.before = func(r *http.Request) {
					if r.URL.Path != "/v1/status" {
						return
					}
					body, _ := io.ReadAll(r.Body)
					r.Body = io.NopCloser(bytes.NewReader(body))
					if strings.Contains(string(body), "oldest_waiting_seconds") {
						refused++
						r.URL.Path = "/v1/status-refused" // answered 4xx below
					}
				}
				next := *g.handler.Load()
				h := http.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.URL.Path == "/v1/status-refused" {
						w.Header().Set("Content-Type", "application/json")
						w.WriteHeader(http.StatusBadRequest)
						io.WriteString(w, `{"error":"json: unknown field \"oldest_waiting_seconds\"","code":"invalid"}`)
						return
					}
					next.ServeHTTP(w, r)
				}))
				g.handler.Store(&h)
			}
			a := g.deskAt(t, "Desk A", "A")
			codes := a.Issue(t, 2)
			a.Sync(t)
			if v := a.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("redeem: %+v", v)
			}
			undoAt := g.Now.Add(time.Minute)
			g.Now = undoAt
			if u := a.Undo(t, codes[0], "the wrong parcel"); u.Server != app.UndoWaitsUpgrade {
				t.Fatalf("undo: %+v, want it waiting for the server's upgrade", u)
			}
			g.Now = g.Now.Add(20 * time.Minute)
			st, err := a.Svc.Sync(context.Background())
			if err != nil || st.Waiting != 1 {
				t.Fatalf("sync: %+v %v, want the undo waiting", st, err)
			}
			reports, err := g.DB.DeskStatuses(context.Background(), app.FormatDate(g.Now))
			if err != nil || len(reports) != 1 || reports[0].EventsWaiting != 1 {
				t.Fatalf("older=%v: the server's reports: %+v %v, want the desk's with 1 waiting", older, reports, err)
			}
			want := "20 minutes"
			if older {
				want = "none told"
				if refused != 1 {
					t.Errorf("the older server refused %d reports, want 1 (then none carry the field)", refused)
				}
			}
			rec := httptest.NewRecorder()
			g.API.Metrics.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
			got := "none told"
			if strings.Contains(rec.Body.String(), `qrdesk_desk_outbox_oldest_age_seconds{site="main"} 1200`+"\n") {
				got = "20 minutes"
			}
			if got != want {
				t.Errorf("older=%v: the oldest waiting event at the server: %s, want %s\n%s", older, got, want, grepLines(rec.Body.String(), "qrdesk_desk_outbox"))
			}
			if older {
				g.Now = g.Now.Add(10 * time.Minute) // past the unchanged figures' 5 minutes
				a.Sync(t)
				if refused != 1 {
					t.Errorf("after the fallback the desk sent the field again: %d refusals", refused)
				}
			}
		}
	})
}
