package multidesk_test

import (
	"testing"
	"time"

	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// Hostile review of claim (4): a desk's copy is the server's status plus
// its own waiting events.

// wantConverged checks that every desk holds the server's status of every
// code and has nothing waiting.
func wantConverged(t *testing.T, h *centraltest.Harness, desks map[string]*centraltest.Desk, codes ...string) {
	t.Helper()
	for name, d := range desks {
		if n := d.Count(t, `SELECT count(*) FROM outbox WHERE state = 'pending'`); n != 0 {
			t.Errorf("desk %s: %d events still waiting", name, n)
		}
	}
	for _, code := range codes {
		st := h.Server(t).Status(code)
		for name, d := range desks {
			if got := d.Status(t, code); string(got) != st {
				t.Errorf("desk %s: %s is %s, the server has it %s", name, code, got, st)
			}
		}
	}
}

// Desk A closes the day expiring X and syncs; desk B, not told, replaces X
// by Y. The server refuses the late replacement (X expired there) and
// voids Y. Once both have synced, every desk must hold X as the server
// does (expired), not "disabled, replaced by Y".
func TestReplaceOfLabelExpiredElsewhereConverges(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 1)
		x := codes[0]
		a.CloseDay(t, true)
		a.Sync(t)
		h.Now = h.Now.Add(time.Minute)
		var y string
		b.Offline(func() { y = b.Replace(t, x, "wang") })
		for _, d := range []*centraltest.Desk{b, a, b, a} {
			d.Sync(t)
		}
		wantConverged(t, h, map[string]*centraltest.Desk{"A": a, "B": b}, x, y)
	})
}

// X→Y at desk A (synced) and X→Y' at desk B offline: the server keeps Y
// and voids Y'. Nobody has used either; after syncing, both desks hold the
// server's status of X, Y and Y'.
func TestTwoReplacementsConverge(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 1)
		x := codes[0]
		y := a.Replace(t, x, "li")
		a.Sync(t)
		var y2 string
		b.Offline(func() { y2 = b.Replace(t, x, "wang") })
		for _, d := range []*centraltest.Desk{b, a, b, a} {
			d.Sync(t)
		}
		wantConverged(t, h, map[string]*centraltest.Desk{"A": a, "B": b}, x, y, y2)
	})
}
