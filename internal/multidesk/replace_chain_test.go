package multidesk_test

import (
	"context"
	"math"
	"testing"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// Hostile review: replacements made at two desks at once, and chains.

// wantConflicts checks that the server and every desk list exactly n
// conflicts and that every pair in want is named by one of them.
func wantConflicts(t *testing.T, h *centraltest.Harness, desks map[string]*centraltest.Desk, want ...string) {
	t.Helper()
	ctx := context.Background()
	report, err := h.DB.Conflicts(ctx, 0, math.MaxInt64)
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
		list, err := d.Svc.Conflicts(ctx)
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
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 1)
		x := codes[0]
		var y, y2 string
		a.Offline(func() {
			y = a.Replace(t, x, "li")
			if v := a.Redeem(t, y, "li"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("desk A offline, Y: %+v", v)
			}
		})
		b.Offline(func() {
			y2 = b.Replace(t, x, "wang")
			if v := b.Redeem(t, y2, "wang"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("desk B offline, Y': %+v", v)
			}
		})
		for _, d := range []*centraltest.Desk{a, b, a, b} {
			d.Sync(t)
		}
		for _, code := range []string{y, y2} {
			if n := h.Server(t).CountLabel(code, "used"); n != 1 {
				t.Errorf("server: %s not used", code)
			}
		}
		wantConflicts(t, h, map[string]*centraltest.Desk{"A": a, "B": b}, pair(y, y2))
	})
}

// A chain X→Y (desk A) →Z (desk B), each synced; then three desks hand the
// parcel over: C (offline since before both replacements) X, A (offline,
// not told of Y→Z) Y, B online Z. Two double uses: both recorded, every
// desk converges with the server's statuses.
func TestChainUsedAtThreeDesks(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 1)
		c := h.Desk(t, "Desk C", "C", h.Station(t, "Desk C", "C"))
		c.Sync(t)
		x := codes[0]
		y := a.Replace(t, x, "li")
		a.Sync(t)
		b.Sync(t)
		z := b.Replace(t, y, "wang")
		b.Sync(t)
		c.Offline(func() {
			if v := c.Redeem(t, x, "chen"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("desk C offline, X: %+v", v)
			}
		})
		a.Offline(func() {
			if v := a.Redeem(t, y, "li"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("desk A offline, Y: %+v", v)
			}
		})
		if v := b.Redeem(t, z, "wang"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk B online, Z: %+v", v)
		}
		for _, d := range []*centraltest.Desk{c, a, b, c, a, b} {
			d.Sync(t)
		}
		desks := map[string]*centraltest.Desk{"A": a, "B": b, "C": c}
		wantConflicts(t, h, desks)
		if n := h.Server(t).CountConflicts(); n != 2 {
			t.Errorf("%d conflicts on the server, want 2 (three uses of one parcel)", n)
		}
		for _, code := range []string{x, y, z} {
			st := h.Server(t).Status(code)
			for name, d := range desks {
				if got := d.Status(t, code); string(got) != st {
					t.Errorf("desk %s: %s is %s, the server %s", name, code, got, st)
				}
			}
		}
	})
}
