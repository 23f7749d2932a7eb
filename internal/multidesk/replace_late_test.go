package multidesk_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"

	"qrdesk/app"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// TestReplacementUsedBeforeItsReplaceArrives: desk A replaces X by Y and
// the replace event does not reach the server (yet): the server is older
// and does not know replace (it waits at the desk), or the upload of the
// events got no answer. Y is then scanned at desk A and X at desk B, both
// online. Had Y's batch gone up alone, the server would hold X and Y as
// two unrelated unused labels and redeem both, then refuse the late
// replace (its new label no longer fresh) and record nothing; the batch
// waits for its replace (store.PendingBatches), so the server does not
// know Y, desk A decides alone, and once the replace arrives the server
// and every desk list a conflict naming both labels.
func TestReplacementUsedBeforeItsReplaceArrives(t *testing.T) {
	t.Parallel()
	for _, why := range []string{"older server", "events unanswered"} {
		t.Run(why, func(t *testing.T) {
			testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
				ctx := context.Background()
				g := newRestorable(t, dbPath)
				var dropEvents atomic.Bool
				if why == "older server" {
					g.kinds = protocol.BaseKinds
					g.serve()
				} else {
					inner := *g.handler.Load()
					var h http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						if dropEvents.Load() && r.URL.Path == "/v1/events" {
							http.Error(w, "bad gateway", http.StatusBadGateway)
							return
						}
						inner.ServeHTTP(w, r)
					})
					g.handler.Store(&h)
				}
				a, b := g.deskAt(t, "Desk A", "A"), g.deskAt(t, "Desk B", "B")
				codes := a.Issue(t, 2)
				a.Sync(t)
				b.Sync(t)
				x := codes[0]
				dropEvents.Store(true)
				y := a.Replace(t, x, "li")
				a.Svc.Sync(ctx) // the batch of Y goes; the replace does not
				b.Sync(t)
				vy := a.Redeem(t, y, "li")
				vx := b.Redeem(t, x, "wang")
				if vy.Outcome != app.OutcomeRedeemed || vx.Outcome != app.OutcomeRedeemed {
					// Refusing one of them is fine too: then no double use.
					t.Logf("Y at desk A: %s, X at desk B: %s: one was refused", vy.Outcome, vx.Outcome)
				}
				// The replace arrives.
				dropEvents.Store(false)
				if why == "older server" {
					g.kinds = nil
					g.serve()
				}
				a.Sync(t)
				b.Sync(t)
				a.Sync(t)
				// (The replace's conflict and Y's redemption's are both
				// kept: one double use, listed twice.)
				total := g.Server(t).CountConflicts()
				if n := g.Server(t).ConflictsBetween(x, y); n < 1 {
					t.Errorf("the server has no conflict naming X and Y (%d in all): both labels of one entitlement were handed over", total)
				}
				for name, d := range map[string]*watchedDesk{"A": a, "B": b} {
					if n := d.Count(t, `SELECT count(*) FROM conflicts`); n != total {
						t.Errorf("desk %s lists %d conflicts, the server %d", name, n, total)
					}
				}
			})
		})
	}
}
