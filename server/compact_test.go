package server_test

import (
	"context"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/internal/testpg"
)

// compact stores the desks' feed positions and compacts, as the server
// does every ten minutes.
func (h *centralHarness) compact(t testing.TB, staleBefore int64) int64 {
	t.Helper()
	if err := h.api.FlushAcks(context.Background()); err != nil {
		t.Fatal(err)
	}
	n, err := h.db.Compact(context.Background(), staleBefore)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// sameState fails unless the desk has every code of the server in the
// server's status, and its conflicts.
func sameState(t *testing.T, h *centralHarness, name string, d *desk) {
	t.Helper()
	rows, err := h.db.QueryForTests(`SELECT code, status FROM codes`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var code, status, local string
		rows.Scan(&code, &status)
		d.db.SQL().QueryRow(`SELECT status FROM codes WHERE code = ?`, code).Scan(&local)
		if local != status {
			t.Errorf("desk %s has %s %q, the server %q", name, code, local, status)
		}
		n++
	}
	if k := count(t, h.db, `SELECT count(*) FROM conflicts`); d.count(t, `SELECT count(*) FROM conflicts`) != k {
		t.Errorf("desk %s knows %d conflicts, the server %d", name, d.count(t, `SELECT count(*) FROM conflicts`), k)
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
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, _ := twoDesks(t, dbPath, 1)
		silent := h.desk(t, "Desk S", "S", h.station(t, "Desk S", "S"))
		silent.sync(t)
		start := h.now
		most := 0
		for day := 0; day < 60; day++ {
			h.now = start.AddDate(0, 0, 8+day) // desk S last read the feed eight days before
			codes := a.issue(t, 5)
			a.sync(t)
			for _, c := range codes[:2] {
				if v := a.redeem(t, c, "li"); v.Outcome != app.OutcomeRedeemed {
					t.Fatalf("day %d: %+v", day, v)
				}
			}
			if _, err := a.svc.SetDisabled(context.Background(), codes[2], true, "torn label", "li"); err != nil {
				t.Fatal(err)
			}
			a.sync(t)
			b.sync(t)
			a.sync(t)
			b.sync(t) // a desk confirms what it read with its next request
			most = max(most, count(t, h.db, `SELECT count(*) FROM changes`))
			h.compact(t, h.now.Add(-7*24*time.Hour).Unix()) // desk S is silent: it does not hold the feed back
			if n := count(t, h.db, `SELECT count(*) FROM changes`); n != 0 {
				t.Fatalf("day %d: %d changes left after every active desk read them", day, n)
			}
		}
		if most > 20 {
			t.Fatalf("the feed held up to %d changes, want at most a day's", most)
		}
		if n := count(t, h.db, `SELECT count(*) FROM events`); n != 60*3 {
			t.Fatalf("%d events kept, want all %d", n, 60*3)
		}
		// A double use offline at the end, so there is a conflict to carry.
		last := a.issue(t, 1)
		a.sync(t)
		b.sync(t)
		b.svc.Remote, a.svc.Remote = nil, nil
		a.redeem(t, last[0], "li")
		b.redeem(t, last[0], "wang")
		a.svc.Remote = newClient(h, "Desk A")
		b.svc.Remote = newClient(h, "Desk B")
		a.sync(t)
		b.sync(t)
		a.sync(t)
		h.compact(t, h.now.Add(-7*24*time.Hour).Unix())

		late := h.desk(t, "Desk L", "L", h.station(t, "Desk L", "L"))
		late.sync(t)
		sameState(t, h, "L (joined after compaction)", late)
		silent.sync(t)
		sameState(t, h, "S (silent for 60 days)", silent)
		sameState(t, h, "B (followed)", b)

		// And the feed goes on for everyone.
		more := a.issue(t, 1)
		a.sync(t)
		a.redeem(t, more[0], "li")
		for _, d := range []*desk{late, silent, b} {
			d.sync(t)
			if v, _ := d.svc.Check(context.Background(), more[0]); v.Outcome != app.OutcomeAlreadyUsed {
				t.Fatalf("after compaction a desk did not follow the feed: %+v", v)
			}
		}
	})
}
