package multidesk_test

import (
	"context"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/serverdbtest"
	"qrdesk/internal/testpg"
)

// sameState fails unless the desk has every code of the server in the
// server's status, and its conflicts.
func sameState(t *testing.T, h *centraltest.Harness, name string, d *centraltest.Desk) {
	t.Helper()
	n := 0
	for _, l := range h.Server(t).Labels() {
		code, status, local := l.Code, l.Status, ""
		d.DB.SQL().QueryRow(`SELECT status FROM codes WHERE code = ?`, code).Scan(&local)
		if local != status {
			t.Errorf("desk %s has %s %q, the server %q", name, code, local, status)
		}
		n++
	}
	if k := h.Server(t).CountConflicts(); d.Count(t, `SELECT count(*) FROM conflicts`) != k {
		t.Errorf("desk %s knows %d conflicts, the server %d", name, d.Count(t, `SELECT count(*) FROM conflicts`), k)
	}
	if n == 0 {
		t.Fatal("the server has no codes")
	}
}

// TestFeedCompaction: sixty days of issuing, redeeming, disabling and
// conflicts, the feed compacted every day: it never holds more than a
// day's changes, the events (the audit trail) all stay, a desk that joins
// afterwards and one that was silent for the whole time start over from a
// snapshot and agree with the server, and the desks that stayed keep
// following the feed.
func TestFeedCompaction(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, _ := centraltest.TwoDesks(t, dbPath, 1)
		silent := h.Desk(t, "Desk S", "S", h.Station(t, "Desk S", "S"))
		silent.Sync(t)
		start := h.Now
		most := 0
		for day := 0; day < 60; day++ {
			h.Now = start.AddDate(0, 0, 8+day) // desk S last read the feed eight days before
			codes := a.Issue(t, 5)
			a.Sync(t)
			for _, c := range codes[:2] {
				if v := a.Redeem(t, c, "li"); v.Outcome != app.OutcomeRedeemed {
					t.Fatalf("day %d: %+v", day, v)
				}
			}
			if _, err := a.Svc.SetDisabled(context.Background(), codes[2], true, "torn label", "li"); err != nil {
				t.Fatal(err)
			}
			a.Sync(t)
			b.Sync(t)
			a.Sync(t)
			b.Sync(t) // a desk confirms what it read with its next request
			most = max(most, centraltest.Count(t, h.DB, `SELECT count(*) FROM changes`))
			h.Compact(t, h.Now.Add(-7*24*time.Hour).Unix()) // desk S is silent: it does not hold the feed back
			if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM changes`); n != 0 {
				t.Fatalf("day %d: %d changes left after every active desk read them", day, n)
			}
		}
		if most > 20 {
			t.Fatalf("the feed held up to %d changes, want at most a day's", most)
		}
		if n := len(h.Server(t).Events(serverdbtest.Where{})); n != 60*3 {
			t.Fatalf("%d events kept, want all %d", n, 60*3)
		}
		// A double use offline at the end, so there is a conflict to carry.
		last := a.Issue(t, 1)
		a.Sync(t)
		b.Sync(t)
		b.Svc.Remote, a.Svc.Remote = nil, nil
		a.Redeem(t, last[0], "li")
		b.Redeem(t, last[0], "wang")
		a.Svc.Remote = centraltest.NewClient(h, "Desk A")
		b.Svc.Remote = centraltest.NewClient(h, "Desk B")
		a.Sync(t)
		b.Sync(t)
		a.Sync(t)
		h.Compact(t, h.Now.Add(-7*24*time.Hour).Unix())

		late := h.Desk(t, "Desk L", "L", h.Station(t, "Desk L", "L"))
		late.Sync(t)
		sameState(t, h, "L (joined after compaction)", late)
		silent.Sync(t)
		sameState(t, h, "S (silent for 60 days)", silent)
		sameState(t, h, "B (followed)", b)

		// And the feed goes on for everyone.
		more := a.Issue(t, 1)
		a.Sync(t)
		a.Redeem(t, more[0], "li")
		for _, d := range []*centraltest.Desk{late, silent, b} {
			d.Sync(t)
			if v, _ := d.Svc.Check(context.Background(), more[0]); v.Outcome != app.OutcomeAlreadyUsed {
				t.Fatalf("after compaction a desk did not follow the feed: %+v", v)
			}
		}
	})
}
