package multidesk_test

import (
	"testing"

	"qrdesk/app"
	"qrdesk/deskclient"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/serverdbtest"
	"qrdesk/internal/testpg"
)

// What a desk keeps for the server: events the server cannot place yet do
// not block its outbox, and the server's answers are remembered. Each runs
// on both engines (unless it says otherwise) with real desks (their own
// SQLite files, the real sync code) on loopback. "Defect N" numbers the
// multi-desk defects found by trying the server as a hostile user would.

// TestUnplacedEventsDoNotBlockTheOutbox (found by the hostile pass): more
// than a page (500) of offline events the server cannot place yet (their
// batch is not uploaded) must not hold back the events behind them.
func TestUnplacedEventsDoNotBlockTheOutbox(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, own := centraltest.TwoDesks(t, dbPath, 1)
		theirs := b.Issue(t, 501) // desk B never uploads them
		token := "qrd_test_Desk_A"
		a.Svc.Remote = deskclient.New("http://127.0.0.1:1", token) // no answer
		for _, code := range theirs {
			if v := a.Redeem(t, code, "li"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("offline, a label of desk B: %+v", v)
			}
		}
		if v := a.Redeem(t, own[0], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("offline, its own label: %+v", v)
		}
		a.Svc.Remote = deskclient.New(h.URL, token)
		a.Sync(t)
		if n := len(h.Server(t).Events(serverdbtest.Where{Code: own[0]})); n != 1 {
			t.Fatalf("the event behind 501 waiting ones reached the server %d times, want 1", n)
		}
		if n := a.Count(t, `SELECT count(*) FROM outbox WHERE state = 'pending'`); n != 501 {
			t.Fatalf("%d events wait, want the 501 of desk B's labels", n)
		}
	})
}

// TestServerAnswerRemembered (found by the property test): a desk that
// redeems online a label it has not downloaded yet keeps the server's
// answer, so the same label scanned there again offline is refused, not
// accepted a second time as an unknown label.
func TestServerAnswerRemembered(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		_, a, b, _ := centraltest.TwoDesks(t, dbPath, 1)
		fresh := a.Issue(t, 1)
		a.Sync(t) // uploaded; desk B has not downloaded it
		if v := b.Redeem(t, fresh[0], "wang"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("online: %+v", v)
		}
		b.Svc.Remote = deskclient.New("http://127.0.0.1:1", "qrd_test_Desk_B") // no answer
		if v := b.Redeem(t, fresh[0], "wang"); v.Outcome != app.OutcomeAlreadyUsed {
			t.Fatalf("the same label again, offline: %+v", v)
		}
	})
}
