package multidesk_test

import (
	"context"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/internal/testpg"
)

// TestRestoreUndoFalselyRefused: after the backup, desk A redeems X
// online and a supervisor undoes it; the server accepts the undo. The
// server is restored. A sends everything again: the undo, but not the
// redemption it undid (an undone online redemption is not queued), so the
// restored server refuses the undo ("there is no redemption to undo") and
// A now lists the supervisor's undo as refused by the server, with an
// audit entry undo_refused, though it was accepted and nothing is wrong.
func TestRestoreUndoFalselyRefused(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		g := newRestorable(t, dbPath)
		a := g.deskAt(t, "Desk A", "A")
		codes := a.Issue(t, 2)
		a.Sync(t)
		backup := g.backup()
		x := codes[0]
		if v := a.Redeem(t, x, "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A online: %+v", v)
		}
		u, err := a.Svc.UndoRedemption(context.Background(), app.UndoRequest{Code: x, Reason: "wrong parcel", Operator: "chen"})
		if err != nil || u.Server != "undone" {
			t.Fatalf("undo: %+v %v, want undone by the server", u, err)
		}
		a.Sync(t)

		g.restore(backup)
		a.Sync(t)
		refused, err := a.Svc.RefusedUndos(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range refused {
			t.Errorf("after the restore desk A lists its accepted undo of %s as refused: %q", r.Code, r.ServerReason)
		}
		if status, _ := g.Server(t).StatusAndStation(x); status != "unused" {
			t.Errorf("the server has %s %s, want unused", x, status)
		}
	})
}

// TestUndoRefusedByAnOlderBackupHeldByANewer (the soak's PostgreSQL seed
// 695094661): desk A redeems X online, undoes it (accepted), and hands X
// over again. Backup 2 holds all of it. The server is restored to backup
// 1, from before; desk B uploads its offline redemption of X, earlier by
// its clock, so B's is the redemption of record there, and A's undo, sent
// again, is refused. The server is restored to backup 2, which holds the
// undo: A must send it again, as the duplicate it is there, take the
// refusal back, and count what the server counts.
func TestUndoRefusedByAnOlderBackupHeldByANewer(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		g := newRestorable(t, dbPath)
		a, b := g.deskAt(t, "Desk A", "A"), g.deskAt(t, "Desk B", "B")
		x := a.Issue(t, 2)[0]
		a.Sync(t)
		b.Sync(t)
		backup1 := g.backup()
		behind := -time.Hour
		b.Skew(g.Harness, &behind)
		b.Offline(func() {
			if v := b.Redeem(t, x, "wang"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("desk B offline: %+v", v)
			}
		})
		if v := a.Redeem(t, x, "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A online: %+v", v)
		}
		if u := a.Undo(t, x, "wrong parcel"); u.Server != "undone" {
			t.Fatalf("undo: %+v, want undone by the server", u)
		}
		if v := a.Redeem(t, x, "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A online, after its undo: %+v", v)
		}
		a.Sync(t)
		backup2 := g.backup()

		g.restore(backup1)
		b.Sync(t)
		a.Sync(t)
		if refused, err := a.Svc.RefusedUndos(ctx); err != nil || len(refused) != 1 {
			t.Fatalf("on the server restored to before the undo, desk A's undo is refused: %+v %v, want it refused", refused, err)
		}

		g.restore(backup2)
		a.Sync(t)
		b.Sync(t)
		a.Sync(t)
		refused, err := a.Svc.RefusedUndos(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range refused {
			t.Errorf("the server holds desk A's undo of %s, but A lists it as refused: %q", r.Code, r.ServerReason)
		}
		g.figuresAgree(t, a, "Desk A")
	})
}

// figuresAgree checks that the desk's own day figures are its dashboard
// row's (the soak's invariant I7).
func (g *restorable) figuresAgree(t *testing.T, d *watchedDesk, name string) {
	t.Helper()
	ctx := context.Background()
	from, to := g.Now.Add(-24*time.Hour).Unix(), g.Now.Add(24*time.Hour).Unix()
	own, err := d.DB.DayFigures(ctx, g.Now.Format("2006-01-02"), name, from, to)
	if err != nil {
		t.Fatal(err)
	}
	day, err := g.DB.DayActivity(ctx, from, to)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range day.Desks {
		if row.Station == name {
			if row.Redeemed != own.Redeemed || row.Conflicts != own.Conflicts {
				t.Errorf("%s counts redeemed %d, conflicts %d; its dashboard row says redeemed %d, conflicts %d", name, own.Redeemed, own.Conflicts, row.Redeemed, row.Conflicts)
			}
			return
		}
	}
	t.Errorf("the dashboard has no row for %s", name)
}
