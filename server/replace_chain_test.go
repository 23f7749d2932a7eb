package server_test

import (
	"context"
	"math"
	"testing"

	"qrdesk/app"
	"qrdesk/internal/testpg"
)

// Hostile review: replacements made at two desks at once, and chains.

// wantConflicts checks that the server and every desk list exactly n
// conflicts and that every pair in want is named by one of them.
func wantConflicts(t *testing.T, h *centralHarness, desks map[string]*desk, want ...string) {
	t.Helper()
	ctx := context.Background()
	report, err := h.db.Conflicts(ctx, 0, math.MaxInt64)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, k := range report {
		got[named(k)] = true
	}
	for _, w := range want {
		if !got[w] {
			t.Errorf("server report: no conflict naming %s; it lists %d: %v", w, len(report), got)
		}
	}
	for name, d := range desks {
		list, err := d.svc.Conflicts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != len(report) {
			t.Errorf("desk %s lists %d conflicts, the server %d", name, len(list), len(report))
		}
	}
}

// X→Y at desk A and X→Y' at desk B, both offline and neither told; A hands
// over Y, B hands over Y'. One parcel went out twice: the server must
// record a conflict naming Y and Y' (both used), listed everywhere.
func TestTwoDesksReplaceAtOnceBothUsed(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, codes := twoDesks(t, dbPath, 1)
		x := codes[0]
		var y, y2 string
		a.offline(func() {
			y = a.replace(t, x, "li")
			if v := a.redeem(t, y, "li"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("desk A offline, Y: %+v", v)
			}
		})
		b.offline(func() {
			y2 = b.replace(t, x, "wang")
			if v := b.redeem(t, y2, "wang"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("desk B offline, Y': %+v", v)
			}
		})
		for _, d := range []*desk{a, b, a, b} {
			d.sync(t)
		}
		for _, code := range []string{y, y2} {
			if n := count(t, h.db, `SELECT count(*) FROM codes WHERE code = ? AND status = 'used'`, code); n != 1 {
				t.Errorf("server: %s not used", code)
			}
		}
		wantConflicts(t, h, map[string]*desk{"A": a, "B": b}, pair(y, y2))
	})
}

// A chain X→Y (desk A) →Z (desk B), each synced; then three desks hand the
// parcel over: C (offline since before both replacements) X, A (offline,
// not told of Y→Z) Y, B online Z. Two double uses: both recorded, every
// desk converges with the server's statuses.
func TestChainUsedAtThreeDesks(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, codes := twoDesks(t, dbPath, 1)
		c := h.desk(t, "Desk C", "C", h.station(t, "Desk C", "C"))
		c.sync(t)
		x := codes[0]
		y := a.replace(t, x, "li")
		a.sync(t)
		b.sync(t)
		z := b.replace(t, y, "wang")
		b.sync(t)
		c.offline(func() {
			if v := c.redeem(t, x, "chen"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("desk C offline, X: %+v", v)
			}
		})
		a.offline(func() {
			if v := a.redeem(t, y, "li"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("desk A offline, Y: %+v", v)
			}
		})
		if v := b.redeem(t, z, "wang"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk B online, Z: %+v", v)
		}
		for _, d := range []*desk{c, a, b, c, a, b} {
			d.sync(t)
		}
		desks := map[string]*desk{"A": a, "B": b, "C": c}
		wantConflicts(t, h, desks)
		if n := count(t, h.db, `SELECT count(*) FROM conflicts`); n != 2 {
			t.Errorf("%d conflicts on the server, want 2 (three uses of one parcel)", n)
		}
		for _, code := range []string{x, y, z} {
			var st string
			h.db.QueryRowForTests(`SELECT status FROM codes WHERE code = ?`, code).Scan(&st)
			for name, d := range desks {
				if got := d.status(t, code); string(got) != st {
					t.Errorf("desk %s: %s is %s, the server %s", name, code, got, st)
				}
			}
		}
	})
}
