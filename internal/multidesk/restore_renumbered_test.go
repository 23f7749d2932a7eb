package multidesk_test

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"qrdesk/app"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// TestRestoreRenumbersUnseenWrites is the soak's PostgreSQL seed 354950093:
// desk A's online redemption of X is answered after the backup. The
// server is restored; a request of A reaches it whose answer never reaches
// A, and takes X's write number; then A's online redemption of Y is
// answered with the next number, so the highest write A holds is one the
// restored server holds. Naming only the highest, A's enrolment found
// nothing and X's redemption was lost. A names its writes the server has
// not confirmed yet, and the highest it has (X, confirmed at a sync before
// the restore): either way the server says it lost one, A starts over
// and X is used at the server again.
func TestRestoreRenumbersUnseenWrites(t *testing.T) {
	t.Parallel()
	for _, syncBeforeRestore := range []bool{false, true} {
		t.Run(fmt.Sprintf("confirmed=%v", syncBeforeRestore), func(t *testing.T) {
			testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
				g := newRestorable(t, dbPath)
				token := g.Station(t, "Desk A", "A")
				a := &watchedDesk{Desk: g.Desk(t, "Desk A", "A", token)}
				a.Svc.Log = slog.New(&a.log)
				codes := a.Issue(t, 6)
				a.Sync(t)
				backup := g.backup()
				x, y := codes[0], codes[1]
				if v := a.Redeem(t, x, "li"); v.Outcome != app.OutcomeRedeemed {
					t.Fatalf("desk A online: %+v", v)
				}
				if syncBeforeRestore {
					a.Sync(t) // the server confirms X's write
				}

				g.restore(backup)
				var r protocol.Result // answered into the void: it takes X's number
				g.Call(t, "POST", "/v1/redeem", token, g.Ring, protocol.Event{EventID: "lost-answer", Code: codes[2], Operator: "li", At: g.Now.Unix()}, &r)
				if v := a.Redeem(t, y, "li"); v.Outcome != app.OutcomeRedeemed {
					t.Fatalf("desk A online after the restore: %+v", v)
				}
				a.Sync(t)
				if a.restarts() != 1 {
					t.Errorf("desk A started over %d times, want 1: the restored server lost its redemption of %s", a.restarts(), x)
				}
				for _, code := range []string{x, y} {
					if status, station := g.Server(t).StatusAndStation(code); status != "used" || station != "Desk A" {
						t.Errorf("the server has %s %s (%s), want used by Desk A: an acknowledged redemption was lost", code, status, station)
					}
				}
			})
		})
	}
}

// TestEnrolmentNamesWrites: the server checks the writes named in the
// body, or the one in the query of a desk from before the list, and
// refuses a list over protocol.MaxWriteChecks with the reason.
func TestEnrolmentNamesWrites(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		g := newRestorable(t, dbPath)
		token := g.Station(t, "Desk A", "A")
		a := g.Desk(t, "Desk A", "A", token)
		codes := a.Issue(t, 2)
		a.Sync(t)
		var r protocol.Result
		if status := g.Call(t, "POST", "/v1/redeem", token, g.Ring, protocol.Event{EventID: "event-one", Code: codes[0], Operator: "li", At: g.Now.Unix()}, &r); status != 200 || r.Write <= 0 {
			var raw map[string]any
			g.Call(t, "POST", "/v1/redeem", token, g.Ring, protocol.Event{EventID: "event-one", Code: codes[0], Operator: "li", At: g.Now.Unix()}, &raw)
			t.Fatalf("the redemption: status %d, %+v (%v), want a write number", status, r, raw)
		}
		enrol := func(query string, writes []protocol.WriteCheck) (int, protocol.Enrolment, string) {
			t.Helper()
			var en protocol.Enrolment
			var raw struct{ Error string }
			status := g.Call(t, "POST", "/v1/enrol"+query, token, g.Ring, protocol.EnrolRequest{Writes: writes}, &en)
			if status != 200 {
				g.Call(t, "POST", "/v1/enrol"+query, token, g.Ring, protocol.EnrolRequest{Writes: writes}, &raw)
			}
			return status, en, raw.Error
		}
		held := protocol.WriteCheck{Number: r.Write, Key: "event-one"}
		other := protocol.WriteCheck{Number: r.Write, Key: "event-two"}
		for _, c := range []struct {
			name   string
			query  string
			writes []protocol.WriteCheck
			lost   bool
		}{
			{"held", "", []protocol.WriteCheck{held}, false},
			{"renumbered", "", []protocol.WriteCheck{held, other}, true},
			{"never given", "", []protocol.WriteCheck{{Number: r.Write + 5, Key: "event-nine"}}, true},
			{"old desk, held", fmt.Sprintf("?write=%d&key=event-one", r.Write), nil, false},
			{"old desk, renumbered", fmt.Sprintf("?write=%d&key=event-two", r.Write), nil, true},
		} {
			status, en, msg := enrol(c.query, c.writes)
			if status != 200 || en.Lost != c.lost {
				t.Errorf("%s: status %d, lost %v (%s), want 200 and lost %v", c.name, status, en.Lost, msg, c.lost)
			}
		}
		many := make([]protocol.WriteCheck, protocol.MaxWriteChecks+1)
		for i := range many {
			many[i] = protocol.WriteCheck{Number: int64(i + 1), Key: fmt.Sprintf("event-%04d", i)}
		}
		if status, _, msg := enrol("", many); status != 400 || !strings.Contains(msg, "at most 1000") {
			t.Errorf("an enrolment naming %d writes: status %d %q, want 400 saying at most 1000", len(many), status, msg)
		}
	})
}
