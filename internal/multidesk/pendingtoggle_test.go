package multidesk_test

import (
	"context"
	"testing"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// follow is one round of a desk's Follow (downloadChanges with no wait):
// the feed after its cursor, applied, while its outbox still waits.
func (g *restorable) follow(t *testing.T, d *watchedDesk, name string) {
	t.Helper()
	ctx := context.Background()
	st, err := d.DB.SyncState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	changes, next, err := centraltest.NewClient(g.Harness, name).Changes(ctx, g.Ring, st.Cursor, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.DB.ApplyChanges(ctx, changes, next); err != nil {
		t.Fatal(err)
	}
}

// TestPendingEnableSkipsUndoStatus: label X is disabled at the
// server; desk B, following the feed, enables it (the enable waits in B's
// outbox until B's next sync). Meanwhile desk A, which had not heard of the
// disable, redeems X offline, syncs, and undoes the redemption: the server
// puts X back to disabled and the feed says so. B's Follow applies A's
// redemption (used) but holds the undo's status back because B's enable
// waits. B's sync then sends the enable, which the server applies (X is
// disabled there): X is unused at the server, and the feed's enable only
// moves a label that is disabled at the desk: B keeps X "used" for good.
func TestPendingEnableSkipsUndoStatus(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		g := newRestorable(t, dbPath)
		a, b, c := g.deskAt(t, "Desk A", "A"), g.deskAt(t, "Desk B", "B"), g.deskAt(t, "Desk C", "C")
		ctx := context.Background()
		codes := a.Issue(t, 2)
		for _, k := range []*watchedDesk{a, b, c} {
			k.Sync(t)
		}
		x := codes[0]
		if _, err := c.Svc.SetDisabled(ctx, x, true, "label torn", "wang"); err != nil {
			t.Fatal(err)
		}
		c.Sync(t)
		b.Sync(t)
		if _, err := b.Svc.SetDisabled(ctx, x, false, "", "zhao"); err != nil { // waits in B's outbox
			t.Fatal(err)
		}

		back := g.Offline(a, "Desk A")
		if v := a.Redeem(t, x, "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A offline: %+v", v)
		}
		back()
		a.Sync(t)
		u, err := a.Svc.UndoRedemption(ctx, app.UndoRequest{Code: x, Reason: "wrong parcel", Operator: "li"})
		if err != nil {
			t.Fatal(err)
		}
		if status, _ := g.Server(t).StatusAndStation(x); status != "disabled" {
			t.Fatalf("after A's undo (%+v) the server has %s %s, want disabled", u, x, status)
		}
		g.follow(t, b, "Desk B")
		b.Sync(t)
		b.Sync(t)
		a.Sync(t)
		c.Sync(t)

		status, _ := g.Server(t).StatusAndStation(x)
		for name, d := range map[string]*watchedDesk{"A": a, "B": b, "C": c} {
			var local string
			d.DB.SQL().QueryRow(`SELECT status FROM codes WHERE code = ?`, x).Scan(&local)
			if local != status {
				t.Errorf("desk %s has %s %q after its syncs, the server %q", name, x, local, status)
			}
		}
	})
}
