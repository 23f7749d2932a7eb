package multidesk_test

import (
	"testing"

	"qrdesk/app"
	"qrdesk/deskclient"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// unreachable runs f with the desk's server down (connections refused):
// the desk decides alone and accepts a correctly signed label it does not
// know.
func unreachable(d *centraltest.Desk, f func()) {
	remote := d.Svc.Remote
	d.Svc.Remote = deskclient.New("http://127.0.0.1:1", "qrd_test_down")
	defer func() { d.Svc.Remote = remote }()
	f()
}

// Hostile review: a replacement label scanned offline at a desk that has
// never downloaded it (accepted offline, unknown), while the old label is
// handed over offline at a third desk. The server hears B's redemption of
// Y before it has Y, then C's X, then A's replacement. One parcel, two
// hand-overs: a conflict naming X and Y, listed everywhere, every desk
// converged, nothing left waiting.
func TestReplacementScannedWhereUnknown(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 1)
		c := h.Desk(t, "Desk C", "C", h.Station(t, "Desk C", "C"))
		c.Sync(t)
		x := codes[0]
		var y string
		a.Offline(func() { y = a.Replace(t, x, "li") })
		unreachable(b, func() {
			if v := b.Redeem(t, y, "wang"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("desk B offline, Y unknown there: %+v", v)
			}
		})
		c.Offline(func() {
			if v := c.Redeem(t, x, "chen"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("desk C offline, X: %+v", v)
			}
		})
		for _, d := range []*centraltest.Desk{b, c, a, b, c, a, b, c, a} {
			d.Sync(t)
		}
		desks := map[string]*centraltest.Desk{"A": a, "B": b, "C": c}
		if n := h.Server(t).ConflictsBetween(x, y); n < 1 {
			t.Errorf("no conflict naming X and Y on the server (%d conflicts in all)", h.Server(t).CountConflicts())
		}
		wantConflicts(t, h, desks)
		for _, code := range []string{x, y} {
			st := h.Server(t).Status(code)
			for name, d := range desks {
				if got := d.Status(t, code); string(got) != st {
					t.Errorf("desk %s: %s is %s, the server %s", name, code, got, st)
				}
			}
		}
		for name, d := range desks {
			if n := d.Count(t, `SELECT count(*) FROM outbox WHERE state <> 'sent'`); n != 0 {
				t.Errorf("desk %s: %d outbox events not sent", name, n)
			}
		}
	})
}
