package multidesk_test

// Undo across server restores (older backup, then newer): the attacks of
// the hostile review of stop 29, run on both engines.
// Each ends with hostileConverged: after every desk synced, every desk
// holds the server's status of every label, lists the server's conflicts,
// has nothing waiting, and its own day figures equal its dashboard row.

import (
	"context"
	"errors"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// lossyRemote passes every request to the server; while loseEvents is
// set, the answer to an events upload is lost on the way back (the
// server decided and committed them).
type lossyRemote struct {
	app.Remote
	loseEvents bool
}

func (l *lossyRemote) Events(ctx context.Context, ring string, evs []protocol.Event) ([]protocol.Result, error) {
	res, err := l.Remote.Events(ctx, ring, evs)
	if l.loseEvents {
		return nil, errors.New("connection reset by peer (answer lost)")
	}
	return res, err
}

// hostileSyncAll syncs every desk, in order, rounds times.
func hostileSyncAll(t *testing.T, rounds int, desks ...*watchedDesk) {
	t.Helper()
	for i := 0; i < rounds; i++ {
		for _, d := range desks {
			d.Sync(t)
		}
	}
}

// hostileConverged checks the promise after every desk synced: statuses
// of every server label, conflicts, nothing waiting, day figures (of every
// desk; reviewConverged for only some).
func (g *restorable) hostileConverged(t *testing.T, desks map[string]*watchedDesk) {
	t.Helper()
	names := make([]string, 0, len(desks))
	for name := range desks {
		names = append(names, name)
	}
	g.reviewConverged(t, desks, names...)
}

// reviewConverged checks the promise after every desk synced: statuses of
// every server label, conflicts, nothing waiting; and the day figures of
// the desks named (a desk with no redemption has no dashboard row).
func (g *restorable) reviewConverged(t *testing.T, desks map[string]*watchedDesk, figures ...string) {
	t.Helper()
	type st struct{ status, station string }
	server := map[string]st{}
	for _, l := range g.Server(t).Labels() {
		server[l.Code] = st{l.Status, l.UsedStation}
	}
	conflicts := g.Server(t).CountConflicts()
	for name, d := range desks {
		for code, s := range server {
			var local string
			d.DB.SQL().QueryRow(`SELECT status FROM codes WHERE code = ?`, code).Scan(&local)
			if local != s.status {
				t.Errorf("desk %s has %s %q, the server %q (used at %q)", name, code, local, s.status, s.station)
			}
		}
		if n := d.Count(t, `SELECT count(*) FROM conflicts`); n != conflicts {
			t.Errorf("desk %s lists %d conflicts, the server %d", name, n, conflicts)
		}
		if n := d.Count(t, `SELECT count(*) FROM outbox WHERE state = 'pending'`); n != 0 {
			t.Errorf("desk %s: %d events still waiting", name, n)
		}
	}
	for _, name := range figures {
		g.figuresAgree(t, desks[name], name)
	}
}

// Found by the review (failed on both engines), fixed: a desk sends every
// refused undo again after a restore, not only those it heard accepted.
// TestUndoAnswerLostThenRefusedByAnOlderBackup: desk A
// redeems X online; its supervisor undoes it, and the server commits the
// undo but its answer is lost (the desk keeps it waiting). Backup 2 holds
// the undo. The server is restored to backup 1, from before A's
// redemption; desk B uploads its offline redemption of X (earlier by its
// clock), so B's is the record there: A, sending everything again, gets
// its redemption answered "conflict" and its undo "rejected". The server is
// restored to backup 2, which holds A's undo. The undo was never answered
// "undone" to A (accepted = 0), so A does not send it again: A keeps its
// undo as refused and its redemption of X as a handover, while the server
// holds the redemption undone. (The seed 695094661 fix covered only an
// undo A had seen answered "undone".)
func TestUndoAnswerLostThenRefusedByAnOlderBackup(t *testing.T) {
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
		lossy := &lossyRemote{Remote: a.Svc.Remote, loseEvents: true}
		a.Svc.Remote = lossy
		if u := a.Undo(t, x, "wrong parcel"); u.Server != "waiting" {
			t.Fatalf("undo: %+v, want waiting (its answer lost)", u)
		}
		lossy.loseEvents = false
		if n := centraltest.Count(t, g.DB, `SELECT count(*) FROM events WHERE kind = 'undo' AND outcome = 'undone'`); n != 1 {
			t.Fatalf("the server holds %d accepted undos, want 1", n)
		}
		backup2 := g.backup()

		g.restore(backup1)
		b.Sync(t)
		a.Sync(t)
		refused, err := a.Svc.RefusedUndos(ctx)
		if err != nil || len(refused) != 1 {
			t.Fatalf("on the server restored to before the undo, desk A's undo: %+v %v, want refused", refused, err)
		}

		g.restore(backup2)
		hostileSyncAll(t, 3, a, b)
		if status, station := g.Server(t).StatusAndStation(x); status != "used" || station != "Desk B" {
			t.Logf("the server has %s %s at %q", x, status, station)
		}
		if refused, err := a.Svc.RefusedUndos(ctx); err != nil || len(refused) != 0 {
			for _, r := range refused {
				t.Errorf("the server holds desk A's undo of %s (undone), but A lists it as refused: %q", r.Code, r.ServerReason)
			}
		}
		g.hostileConverged(t, map[string]*watchedDesk{"Desk A": a, "Desk B": b})
	})
}

// Held (the review's attack found nothing; kept for coverage).
// TestUndoFromTheFeedThenNewerBackupConverges: A redeems X online (backup 1
// holds it), undoes it (accepted), B learns the undo from the feed and
// redeems X online. Backup 2 holds all three. The server is restored to
// backup 1; B syncs first: its redemption, sent again, meets A's
// redemption there (a conflict), and A's undo, sent again, is refused.
// The server is restored to backup 2. After every desk synced the desks
// must agree with it: X used by B, no conflict, figures as the dashboard.
func TestUndoFromTheFeedThenNewerBackupConverges(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		g := newRestorable(t, dbPath)
		a, b := g.deskAt(t, "Desk A", "A"), g.deskAt(t, "Desk B", "B")
		x := a.Issue(t, 2)[0]
		a.Sync(t)
		b.Sync(t)
		if v := a.Redeem(t, x, "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A online: %+v", v)
		}
		backup1 := g.backup()
		g.Now = g.Now.Add(time.Minute)
		if u := a.Undo(t, x, "wrong parcel"); u.Server != "undone" {
			t.Fatalf("undo: %+v", u)
		}
		b.Sync(t)
		g.Now = g.Now.Add(time.Minute)
		if v := b.Redeem(t, x, "wang"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk B online after A's undo: %+v", v)
		}
		hostileSyncAll(t, 1, a, b)
		backup2 := g.backup()

		g.restore(backup1)
		hostileSyncAll(t, 1, b, a)
		t.Logf("on backup 1 after B then A synced: %d conflicts", g.Server(t).CountConflicts())

		g.restore(backup2)
		hostileSyncAll(t, 3, a, b)
		if status, station := g.Server(t).StatusAndStation(x); status != "used" || station != "Desk B" {
			t.Errorf("the server has %s %s at %q, want used at Desk B", x, status, station)
		}
		g.hostileConverged(t, map[string]*watchedDesk{"Desk A": a, "Desk B": b})
	})
}

// TestRestoredUndoneRedemptionSentAgainIsNoConflict: desk A redeems X
// online and its supervisor undoes it, answered "undone" (nothing was
// handed over at A). The server is restored to a backup from before both;
// there X is unused, and desk C redeems it online: the only handover of
// X. A's sync sends everything again, its redemption and its undo in one
// request: the server takes them as one fact (the parcel came back), so
// no conflict is recorded, X stays C's, and A's undo is accepted again
// (central.MarkTakenBack; it used to be a conflict and a refused undo).
func TestRestoredUndoneRedemptionSentAgainIsNoConflict(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		g := newRestorable(t, dbPath)
		a, c := g.deskAt(t, "Desk A", "A"), g.deskAt(t, "Desk C", "C")
		x := a.Issue(t, 2)[0]
		a.Sync(t)
		c.Sync(t)
		backup := g.backup()
		if v := a.Redeem(t, x, "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A online: %+v", v)
		}
		if u := a.Undo(t, x, "wrong parcel"); u.Server != "undone" {
			t.Fatalf("undo: %+v, want undone", u)
		}
		a.Sync(t)

		g.restore(backup)
		g.Now = g.Now.Add(time.Minute)
		if v := c.Redeem(t, x, "wang"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk C online on the restored server: %+v", v)
		}
		hostileSyncAll(t, 3, a, c)
		if n := g.Server(t).CountConflicts(); n != 0 {
			t.Errorf("the server records %d conflicts over %s: one parcel went out (C's); A's redemption was undone and the server had said so", n, x)
		}
		if refused, err := a.Svc.RefusedUndos(ctx); err != nil || len(refused) != 0 {
			for _, r := range refused {
				t.Errorf("desk A's undo of %s, answered undone before the restore, is now refused: %q", r.Code, r.ServerReason)
			}
		}
		if status, station := g.Server(t).StatusAndStation(x); status != "used" || station != "Desk C" {
			t.Errorf("the server has %s %s at %q, want used at Desk C", x, status, station)
		}
		g.hostileConverged(t, map[string]*watchedDesk{"Desk A": a, "Desk C": c})
	})
}

// Held (the review's attack found nothing; kept for coverage).
// TestLateUndoAndRescanAfterAConflictConverge: desk A, offline, redeems X,
// undoes it (the undo waits) and redeems X again (the new redemption
// follows the undo in the outbox). Meanwhile desk B redeems X online. A's
// sync: its first redemption (earlier) is a conflict, the undo is refused
// (a conflict), and its second redemption meets a used label. After every
// desk synced, the desks must agree with the server.
func TestLateUndoAndRescanAfterAConflictConverge(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		g := newRestorable(t, dbPath)
		a, b := g.deskAt(t, "Desk A", "A"), g.deskAt(t, "Desk B", "B")
		x := a.Issue(t, 2)[0]
		a.Sync(t)
		b.Sync(t)
		a.Offline(func() {
			if v := a.Redeem(t, x, "li"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("desk A offline: %+v", v)
			}
			a.Undo(t, x, "wrong parcel")
			if v := a.Redeem(t, x, "li"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("desk A offline, after its undo: %+v", v)
			}
		})
		g.Now = g.Now.Add(time.Minute)
		if v := b.Redeem(t, x, "wang"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk B online: %+v", v)
		}
		hostileSyncAll(t, 3, a, b)
		g.hostileConverged(t, map[string]*watchedDesk{"Desk A": a, "Desk B": b})
	})
}

// dayAgree checks desk d's own figures of the local day of at against
// its dashboard row of that day (one day, not figuresAgree's 48 hours).
func (g *restorable) dayAgree(t *testing.T, d *watchedDesk, name string, at time.Time) {
	t.Helper()
	ctx := context.Background()
	day := app.Day(at)
	from, to := day.Unix(), day.AddDate(0, 0, 1).Unix()
	own, err := d.DB.DayFigures(ctx, day.Format("2006-01-02"), name, from, to)
	if err != nil {
		t.Fatal(err)
	}
	dash, err := g.DB.DayActivity(ctx, from, to)
	if err != nil {
		t.Fatal(err)
	}
	var redeemed, conflicts int
	for _, row := range dash.Desks {
		if row.Station == name {
			redeemed, conflicts = row.Redeemed, row.Conflicts
		}
	}
	if redeemed != own.Redeemed || conflicts != own.Conflicts {
		t.Errorf("%s, %s: the desk counts redeemed %d, conflicts %d; its dashboard row says redeemed %d, conflicts %d",
			name, day.Format("2006-01-02"), own.Redeemed, own.Conflicts, redeemed, conflicts)
	}
}

// Held (the review's attack found nothing; kept for coverage).
// TestRestoreNextDayKeepsEachDaysFigures: desk A redeems X
// online on day 1 and Y online, then its supervisor undoes Y (accepted).
// The server is restored the next morning to a backup from before; A
// sends everything again. Each day's figures of A must still equal its
// dashboard row of that day.
func TestRestoreNextDayKeepsEachDaysFigures(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		g := newRestorable(t, dbPath)
		a := g.deskAt(t, "Desk A", "A")
		codes := a.Issue(t, 3)
		a.Sync(t)
		backup := g.backup()
		day1 := g.Now
		for _, c := range codes[:2] {
			if v := a.Redeem(t, c, "li"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("desk A online: %+v", v)
			}
		}
		if u := a.Undo(t, codes[1], "wrong parcel"); u.Server != "undone" {
			t.Fatalf("undo: %+v", u)
		}
		a.Sync(t)
		g.dayAgree(t, a, "Desk A", day1)

		g.Now = g.Now.Add(24 * time.Hour)
		g.restore(backup)
		hostileSyncAll(t, 2, a)
		g.dayAgree(t, a, "Desk A", day1)
		g.dayAgree(t, a, "Desk A", g.Now)
		g.hostileConverged(t, map[string]*watchedDesk{"Desk A": a})
	})
}
