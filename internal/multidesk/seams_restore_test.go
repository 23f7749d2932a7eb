package multidesk_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/central"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/serverdbtest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
	"qrdesk/store"
)

// Seams of a desk's own backup and restore ('qrdesk backup', 'qrdesk
// restore') and of the server's restore with undo, close, staff and
// serials.

// backupDesk writes a backup of the desk's database, as 'qrdesk backup'.
func backupDesk(t *testing.T, d *centraltest.Desk) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "desk.backup")
	if err := d.DB.Backup(context.Background(), path); err != nil {
		t.Fatal(err)
	}
	return path
}

// restoreDeskFile stops the desk, puts the backup in place of its database
// (as 'qrdesk restore') and starts it again on it, with the same clock and
// server.
func restoreDeskFile(t *testing.T, d *centraltest.Desk, backup string) {
	t.Helper()
	ctx := context.Background()
	path, old := d.DB.Path(), d.Svc
	d.DB.Close()
	if _, err := store.Restore(ctx, backup, path); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	svc := app.NewService(db, old.Keys, nil)
	svc.Now, svc.Remote, svc.Log = old.Now, old.Remote, old.Log
	db.UseClock(old.Now)
	d.Svc, d.DB = svc, db
}

// TestUndoAfterTheDesksRestore: desk A redeems X online, then is restored
// from its own backup taken before, and syncs. X is still A's own
// redemption at the server, so its supervisor's undo afterwards is
// accepted and X is unused everywhere (or, if the desk cannot undo what
// its database no longer holds as its own, it is refused with a reason);
// either way every desk's copy equals the server's, and X is handed over
// once.
func TestUndoAfterTheDesksRestore(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 2)
		x := codes[0]
		backup := backupDesk(t, a)
		h.Now = h.Now.Add(time.Minute)
		if v := a.Redeem(t, x, "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A online: %+v", v)
		}
		restoreDeskFile(t, a, backup)
		a.Sync(t)
		if got := a.Status(t, x); got != app.StatusUsed {
			t.Fatalf("desk A restored and synced holds %s %s, want used", x, got)
		}
		h.Now = h.Now.Add(time.Minute)
		_, err := a.Svc.UndoRedemption(context.Background(), app.UndoRequest{Code: x, Reason: "wrong parcel", Operator: "boss"})
		a.Sync(t)
		b.Sync(t)
		a.Sync(t)
		want := app.StatusUnused
		if err != nil {
			t.Logf("desk A's undo after its restore: %v", err)
			want = app.StatusUsed
		}
		if got := h.Server(t).Status(x); got != string(want) {
			t.Errorf("after the undo (err %v) the server holds %s %s, want %s", err, x, got, want)
		}
		wantConverged(t, h, map[string]*centraltest.Desk{"A": a, "B": b}, x)
		if err == nil {
			h.Now = h.Now.Add(time.Minute)
			if v := b.Redeem(t, x, "wang"); v.Outcome != app.OutcomeRedeemed {
				t.Errorf("desk B online after the undo: %+v", v)
			}
			a.Sync(t)
			wantConverged(t, h, map[string]*centraltest.Desk{"A": a, "B": b}, x)
		}
	})
}

// TestCloseSurvivesTheDesksRestore: desk A redeems one label and closes
// its day expiring the unused ones, and syncs; it is then restored from a
// backup from before the close. After its sync its copies of the expired
// labels are expired (as the server holds them), nothing of the day is
// usable again at A, and its own figures equal its dashboard row.
func TestCloseSurvivesTheDesksRestore(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 3)
		h.Now = h.Now.Add(time.Minute)
		if v := a.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A online: %+v", v)
		}
		backup := backupDesk(t, a)
		h.Now = h.Now.Add(time.Minute)
		a.CloseDay(t, true)
		a.Sync(t)
		for _, c := range codes[1:] {
			if got := h.Server(t).Status(c); got != string(app.StatusExpired) {
				t.Fatalf("the close left %s %s at the server: the test's premise changed", c, got)
			}
		}
		restoreDeskFile(t, a, backup)
		a.Sync(t)
		b.Sync(t)
		wantConverged(t, h, map[string]*centraltest.Desk{"A": a, "B": b}, codes...)
		a.Offline(func() {
			for _, c := range codes[1:] {
				if v := a.Redeem(t, c, "li"); v.Outcome == app.OutcomeRedeemed {
					t.Errorf("desk A restored handed over %s, expired by its own close: %+v", c, v)
				}
			}
		})
		checkOwnFigures(t, "Desk A", a, dashboardRows(t, h)["Desk A"])
	})
}

// TestRemovedOperatorAfterTheDesksRestore: an operator is removed at the
// server after desk A's backup. Desk A, restored from that backup, holds
// the operator again, but after its next sync refuses the badge, as every
// other desk does.
func TestRemovedOperatorAfterTheDesksRestore(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, _ := centraltest.TwoDesks(t, dbPath, 1)
		changeStaff(t, h, protocol.StaffChange{Action: protocol.StaffAdd, Name: "li"}, "2468")
		a.Sync(t)
		b.Sync(t)
		badge := badgeOf(t, a, "li")
		signsIn(t, a, "desk A", badge, "li", false)
		backup := backupDesk(t, a)
		h.Now = h.Now.Add(time.Minute)
		changeStaff(t, h, protocol.StaffChange{Action: protocol.StaffRemove, Name: "li"}, "")
		a.Sync(t)
		b.Sync(t)
		refused(t, a, "desk A after the removal", badge)
		restoreDeskFile(t, a, backup)
		a.Sync(t)
		refused(t, a, "desk A restored from a backup before the removal, after its sync", badge)
		refused(t, b, "desk B", badge)
	})
}

// TestRemovedOperatorAfterTheServersRestore: an operator is removed at the
// server after the server's backup; the server is then restored from that
// backup. A removal is an administrator's decision the desks heard of: it
// must not be undone silently. After the desks' syncs, the operator is
// refused at every desk, a desk enrolled after the restore too, and the
// server's list holds the removal again, at its time (a desk that holds
// the member removed sends the removal again). Added back later by the
// manager, li is a new member whom no desk removes.
func TestRemovedOperatorAfterTheServersRestore(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		g := newRestorable(t, dbPath)
		a, b := g.deskAt(t, "Desk A", "A"), g.deskAt(t, "Desk B", "B")
		changeStaff(t, g.Harness, protocol.StaffChange{Action: protocol.StaffAdd, Name: "li"}, "2468")
		a.Sync(t)
		b.Sync(t)
		badge := badgeOf(t, a.Desk, "li")
		backup := g.backup()
		g.Now = g.Now.Add(time.Minute)
		removed := changeStaff(t, g.Harness, protocol.StaffChange{Action: protocol.StaffRemove, Name: "li"}, "")
		a.Sync(t)
		b.Sync(t)
		refused(t, a.Desk, "desk A after the removal", badge)
		g.restore(backup)
		g.Now = g.Now.Add(time.Minute)
		for _, d := range []*watchedDesk{a, b, a, b} {
			d.Sync(t)
		}
		// Desk C, enrolled after the restore, starts from the server's
		// list.
		c := g.deskAt(t, "Desk C", "C")
		c.Sync(t)
		for name, d := range map[string]*watchedDesk{"desk A": a, "desk B": b, "desk C": c} {
			if op, err := d.Svc.Operators().SignInBadge(context.Background(), badge); err == nil {
				t.Errorf("%s after the server's restore: the removed operator's badge signs in %s again", name, op.Name)
			}
		}
		staff, err := g.DB.Staff(context.Background(), true)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range staff {
			if m.Name == "li" && m.RemovedAt == 0 {
				t.Errorf("the restored server holds li on its staff list again: %+v", m)
			}
			if m.Name == "li" && m.RemovedAt != removed.RemovedAt {
				t.Errorf("the removal sent again is dated %d, the administrator's was %d", m.RemovedAt, removed.RemovedAt)
			}
		}
		// The manager adds li back later: a new member, whom no desk
		// removes again.
		g.Now = g.Now.Add(time.Minute)
		changeStaff(t, g.Harness, protocol.StaffChange{Action: protocol.StaffAdd, Name: "li"}, "1357")
		for _, d := range []*watchedDesk{a, b, c, a, b, c} {
			d.Sync(t)
		}
		again := badgeOf(t, c.Desk, "li")
		for name, d := range map[string]*watchedDesk{"desk A": a, "desk B": b, "desk C": c} {
			signsIn(t, d.Desk, name+", li added back", again, "li", false)
			refused(t, d.Desk, name+", li's old badge", badge)
		}
	})
}

// TestSerialsAfterBothRestores: desk A issues serials 1-3 and syncs; the
// server is backed up, and so is desk A; A issues 4-6 (printed, handed
// out) and syncs. The server is restored from its backup (it holds 1-3),
// then desk A from its own (1-3). A issues again: it must not print
// serials 4-6 a second time under its letter. Desk B holds copies of 4-6
// from the feed: finding that the server lost history, it tells the
// server the serials it holds, and A learns them at its enrolment.
func TestSerialsAfterBothRestores(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		serialsAfterBothRestores(t, dbPath, "")
	})
}

// TestSerialsAfterBothRestoresOneDeskSite: TestSerialsAfterBothRestores
// with desk A the only desk of its site (a store with one desk). Desk B,
// of another site, follows only its own site's feed and holds no copy of
// A's labels, so no desk tells the restored server A's serials 4-6: A
// learns them from what it reported before the restore.
func TestSerialsAfterBothRestoresOneDeskSite(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		serialsAfterBothRestores(t, dbPath, "Store")
	})
}

// serialsAfterBothRestores is both tests' story; ownSite, if not empty,
// is a site of its own desk A is moved to before it issues.
func serialsAfterBothRestores(t *testing.T, dbPath func(t testing.TB) string, ownSite string) {
	ctx := context.Background()
	g := newRestorable(t, dbPath)
	if ownSite != "" {
		if err := g.DB.AddSite(ctx, ownSite, 1); err != nil {
			t.Fatal(err)
		}
	}
	a, b := g.deskAt(t, "Desk A", "A"), g.deskAt(t, "Desk B", "B")
	if ownSite != "" {
		if err := g.DB.SetStationSite(ctx, "Desk A", ownSite); err != nil {
			t.Fatal(err)
		}
	}
	first := a.Issue(t, 3)
	a.Sync(t)
	b.Sync(t)
	serverBackup := g.backup()
	deskBackup := backupDesk(t, a.Desk)
	g.Now = g.Now.Add(time.Minute)
	printed := a.Issue(t, 3)
	a.Sync(t)
	b.Sync(t)
	g.restore(serverBackup)
	restoreDeskFile(t, a.Desk, deskBackup)
	g.Now = g.Now.Add(time.Minute)
	b.Sync(t)
	a.Sync(t)
	taken := map[int]string{}
	for _, c := range append(first, printed...) {
		code, err := app.Parse(c)
		if err != nil {
			t.Fatal(err)
		}
		taken[code.Serial] = c
	}
	_, again, err := a.Svc.Issue(ctx, app.IssueRequest{Count: 3})
	if err != nil {
		t.Fatalf("desk A, synced after both restores, cannot issue: %v", err)
	}
	for _, c := range again {
		if taken[c.Serial] != "" {
			t.Errorf("desk A issued serial %d again (%s), printed before as %s", c.Serial, c, taken[c.Serial])
		}
	}
}

// TestCloseAfterAMoveTheServersRestoreLost: desk A issues two labels in
// site main; the server is backed up; the administrator moves A to North,
// and A hears of it at its next sync. Offline, A closes its day expiring
// the unused labels it holds, main's two among them. The server is then
// restored from its backup, which holds A in main. A's close was made as a
// North desk: it expires nothing of main, though the restored server
// holds A in main when the expiries arrive. The labels stay usable, main's
// desk M hands one over online, and A's copies follow the server.
func TestCloseAfterAMoveTheServersRestoreLost(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		g := newRestorable(t, dbPath)
		a, m := g.deskAt(t, "Desk A", "A"), g.deskAt(t, "Desk M", "M")
		codes := a.Issue(t, 2)
		a.Sync(t)
		m.Sync(t)
		if err := g.DB.AddSite(ctx, "North", 1); err != nil {
			t.Fatal(err)
		}
		backup := g.backup()
		g.Now = g.Now.Add(time.Minute)
		if err := g.DB.SetStationSite(ctx, "Desk A", "North"); err != nil {
			t.Fatal(err)
		}
		a.Sync(t)
		back := offline(a.Desk, "Desk A")
		g.Now = g.Now.Add(time.Minute)
		if dc := a.CloseDay(t, true); dc.ExpiredNow != len(codes) {
			t.Fatalf("desk A's close expired %d labels, want its %d (the test's premise changed)", dc.ExpiredNow, len(codes))
		}
		back()
		g.restore(backup)
		g.Now = g.Now.Add(time.Minute)
		for _, d := range []*watchedDesk{a, m, a, m} {
			d.Sync(t)
		}
		for _, c := range codes {
			if got := g.Server(t).Status(c); got != string(app.StatusUnused) {
				t.Errorf("main's label %s is %s at the restored server after the close desk A made as North's, want unused", c, got)
			}
		}
		if v := m.Redeem(t, codes[0], "wang"); v.Outcome != app.OutcomeRedeemed {
			t.Errorf("desk M (main) online, main's label after North's close: %+v", v)
		}
		a.Sync(t)
		wantConverged(t, g.Harness, map[string]*centraltest.Desk{"A": a.Desk, "M": m.Desk}, codes...)
	})
}

// TestRemovedOperatorsWorkFlaggedWhenTheRemovalComesBack: li is removed at
// the server after its backup; desk A hears of it, desk D (offline) does
// not. The server is restored from the backup (li current again). D, still
// offline, hands a parcel over on li's badge after the removal time, and
// syncs first: the restored server takes the redemption unflagged. Then A
// syncs and sends the removal back, dated when it was made: the server
// flags D's redemption as a removed operator's work, as it would have had
// it heard of the removal first.
func TestRemovedOperatorsWorkFlaggedWhenTheRemovalComesBack(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		g := newRestorable(t, dbPath)
		a, d := g.deskAt(t, "Desk A", "A"), g.deskAt(t, "Desk D", "D")
		changeStaff(t, g.Harness, protocol.StaffChange{Action: protocol.StaffAdd, Name: "li"}, "2468")
		codes := a.Issue(t, 2)
		a.Sync(t)
		d.Sync(t)
		backup := g.backup()
		g.Now = g.Now.Add(time.Minute)
		changeStaff(t, g.Harness, protocol.StaffChange{Action: protocol.StaffRemove, Name: "li"}, "")
		a.Sync(t)
		g.restore(backup)
		g.Now = g.Now.Add(time.Minute)
		d.Offline(func() {
			if v := d.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("desk D offline, li's scan: %+v", v)
			}
		})
		d.Sync(t)
		a.Sync(t) // finds the restore (its feed position is gone) and starts over
		a.Sync(t) // sends the removal again
		flags := int64(g.Server(t).Event(serverdbtest.Where{Kind: "redeem", Code: codes[0]}).Flags)
		if central.Flags(flags)&central.FlagRemovedStaff == 0 {
			t.Errorf("desk D's redemption by li after li's removal carries flags %d, without the removed operator's", flags)
		}
	})
}

// TestRemovedSupervisorsCloseFlaggedWhenTheRemovalComesBack: the close of
// TestRemovedSupervisorOfflineCloseExpires across a server restore
// that lost the removal (TestRemovedOperatorsWorkFlaggedWhenTheRemovalComesBack's
// story). Supervisor wang is removed at the server after its backup; desk
// A hears of it, desk B (offline) does not. The server is restored from
// the backup (wang current again). B, still offline, closes the day as
// wang expiring the unused labels, and syncs first: the restored server,
// which knows no removal, expires them. Then A syncs and sends the removal
// back, dated when it was made: the expiries are wang's work after the
// removal, and must be flagged and listed as wang's redemptions would be.
// The property test's staff-close family found it.
func TestRemovedSupervisorsCloseFlaggedWhenTheRemovalComesBack(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		g := newRestorable(t, dbPath)
		a, b := g.deskAt(t, "Desk A", "A"), g.deskAt(t, "Desk B", "B")
		changeStaff(t, g.Harness, protocol.StaffChange{Action: protocol.StaffAdd, Name: "wang", Supervisor: true}, "1357")
		codes := b.Issue(t, 2)
		b.Sync(t)
		a.Sync(t)
		backup := g.backup()
		g.Now = g.Now.Add(time.Minute)
		changeStaff(t, g.Harness, protocol.StaffChange{Action: protocol.StaffRemove, Name: "wang"}, "")
		a.Sync(t)
		g.restore(backup)
		g.Now = g.Now.Add(time.Minute)
		b.Offline(func() {
			if _, err := b.Svc.CloseDay(ctx, app.CloseDayRequest{ExpireUnused: true, Operator: "wang"}); err != nil {
				t.Fatalf("desk B offline: wang's close: %v", err)
			}
		})
		b.Sync(t)
		a.Sync(t) // finds the restore and starts over
		a.Sync(t) // sends the removal again
		if n := centraltest.Count(t, g.DB, `SELECT count(*) FROM staff WHERE name = 'wang' AND removed_at <> 0`); n != 1 {
			t.Fatalf("desk A did not send wang's removal back (removed records: %d)", n)
		}
		expired := centraltest.Count(t, g.DB, `SELECT count(*) FROM events WHERE kind = 'expire' AND outcome = 'expired'`)
		flagged, listed := removedStaffExpiries(t, g.DB)
		if expired != len(codes) || flagged != len(codes) || listed != len(codes) {
			t.Errorf("wang, removed at the server before a restore lost it, closed the day at desk B offline after the removal: the restored server expired %d of %d labels; once desk A sent the removal back %d expiries are flagged, %d in the removed staff's work; want all expired, flagged and listed",
				expired, len(codes), flagged, listed)
		}
	})
}
