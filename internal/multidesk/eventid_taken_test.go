package multidesk_test

// The hostile review of event ids taken on a restored server (id_taken,
// store.RekeyEvent), both engines. Each attack learns ids as the feed shows
// them (read here from the server's events, which the feed carries) and
// sends an event under them with another desk's token after a restore.

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"qrdesk/app"
	"qrdesk/deskclient"
	"qrdesk/internal/serverdbtest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
	"qrdesk/store"
)

// serverEventID is the id of station's event of kind on code at the server
// (the feed shows it to every desk of the site).
func serverEventID(t *testing.T, g *restorable, station string, kind protocol.Kind, code string) string {
	t.Helper()
	events := g.Server(t).Events(serverdbtest.Where{Station: station, Kind: kind, Code: code})
	if len(events) == 0 {
		t.Fatalf("no %s event of %s on %s at the server", kind, station, code)
	}
	return events[len(events)-1].EventID
}

// squatScene is where every attack here starts: a server that can be
// restored, desk A and the desks of letters, n labels issued at A and synced
// to every desk, the squatter's token (station "Desk M", which no desk
// holds: a stolen token) and a backup of the server taken then.
func squatScene(t *testing.T, dbPath func(t testing.TB) string, n int, letters ...string) (g *restorable, desks []*watchedDesk, codes []string, squatter, backup string) {
	t.Helper()
	g = newRestorable(t, dbPath)
	for _, l := range append([]string{"A"}, letters...) {
		desks = append(desks, g.deskAt(t, "Desk "+l, l))
	}
	codes = desks[0].Issue(t, n)
	squatter = g.Station(t, "Desk M", "M")
	hostileSyncAll(t, 1, desks...)
	return g, desks, codes, squatter, g.backup()
}

// squat sends, with token, a redemption of code under id (offline).
func squat(t *testing.T, g *restorable, token, id, code string) {
	t.Helper()
	var res struct {
		Results []protocol.Result `json:"results"`
	}
	st := g.Call(t, "POST", "/v1/events", token, g.Ring, map[string]any{"events": []protocol.Event{{EventID: id, Kind: protocol.KindRedeem, Code: code, Operator: "wang", At: g.Now.Unix(), Offline: true}}}, &res)
	if st != 200 {
		t.Fatalf("the squatting event under %s: %d %+v", id, st, res.Results)
	}
	t.Logf("squatted %s with a redemption of %s: %+v", id, code, res.Results)
}

// Attack 1: the squatter takes desk A's redemption id for a label Y of its
// own. A renumbers its redemption; its copy of Y's redemption (the
// squatter's, from the snapshot it started over from) carries the same id.
// After everyone syncs, every desk agrees with the server, and desk A
// still holds Y's redemption under the id the server has for it.
func TestTakenEventIDRenumbersOnlyTheDesksOwnEvent(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		g, desks, codes, m, backup := squatScene(t, dbPath, 3, "B")
		a, b := desks[0], desks[1]
		x, y := codes[0], codes[1]
		if v := a.Redeem(t, x, "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A online: %+v", v)
		}
		hostileSyncAll(t, 1, a, b)
		id := serverEventID(t, g, "Desk A", protocol.KindRedeem, x)
		g.restore(backup)
		squat(t, g, m, id, y)
		hostileSyncAll(t, 3, a, b)
		var xStation string
		a.DB.SQL().QueryRow(`SELECT r.station FROM redemptions r JOIN codes k ON k.id = r.code_id WHERE k.code = ? AND r.undone_at = 0`, x).Scan(&xStation)
		if xStation != "Desk A" {
			t.Errorf("desk A holds its own redemption of X as made at %q", xStation)
		}
		if status, station := g.Server(t).StatusAndStation(x); status != "used" || station != "Desk A" {
			t.Errorf("server: %s %s at %q, want used at Desk A", x, status, station)
		}
		var trace string
		a.DB.SQL().QueryRow(`SELECT r.trace_id FROM redemptions r JOIN codes k ON k.id = r.code_id WHERE k.code = ? AND r.undone_at = 0`, y).Scan(&trace)
		// Under its id, or under its id and label when a redemption of
		// another label held the id at this desk (store.feedTrace).
		if trace != id && trace != id+"/"+y {
			t.Errorf("desk A holds desk M's redemption of Y under id %q; the server has it under %q (the snapshot's redemption of Y, under A's own id, was written onto A's redemption of X)", trace, id)
		}
		a.Offline(func() {
			if v := a.Redeem(t, y, "li"); v.Outcome != app.OutcomeAlreadyUsed || v.UsedStation != "Desk M" {
				t.Errorf("desk A, offline, scans Y (used at Desk M): %s, used at %q by %q", v.Outcome, v.UsedStation, v.UsedOperator)
			}
		})
		g.reviewConverged(t, map[string]*watchedDesk{"Desk A": a, "Desk B": b}, "Desk A")
	})
}

// Attack 2: the squat, then the server restored once more to a newer
// backup that holds A's redemption under its first id. A's renumbered
// redemption goes again: one handover, so no conflict, and everyone agrees.
func TestRestoredServerKeepsARenumberedRedemptionsFirstID(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		g, desks, codes, m, backup0 := squatScene(t, dbPath, 3, "B", "C")
		a, b, c := desks[0], desks[1], desks[2]
		x, y := codes[0], codes[1]
		if v := a.Redeem(t, x, "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A online: %+v", v)
		}
		hostileSyncAll(t, 1, a, b, c)
		backup1 := g.backup()
		id := serverEventID(t, g, "Desk A", protocol.KindRedeem, x)
		g.restore(backup0)
		squat(t, g, m, id, y)
		a.Sync(t)
		a.Sync(t)
		g.restore(backup1)
		hostileSyncAll(t, 3, a, b, c)
		if status, station := g.Server(t).StatusAndStation(x); status != "used" || station != "Desk A" {
			t.Errorf("server: %s %s at %q, want used at Desk A", x, status, station)
		}
		if n := g.Server(t).CountConflicts(); n != 0 {
			t.Errorf("%d conflicts on the server: one parcel was handed over once", n)
		}
		if u := a.Undo(t, x, "wrong parcel"); u.Server != "undone" {
			t.Errorf("desk A's undo of its one redemption: %+v", u)
		}
		hostileSyncAll(t, 2, a, b, c)
		g.reviewConverged(t, map[string]*watchedDesk{"Desk A": a, "Desk B": b, "Desk C": c}, "Desk A")
	})
}

// Attack 3: the squatter takes the id of A's accepted undo (the feed shows
// it). A sends its redemption and undo again after the restore: the undo
// goes under a new id and is accepted; X is unused everywhere, no
// conflict, the undo not refused.
func TestTakenUndoIDGoesAgainUnderANewID(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		g, desks, codes, m, backup := squatScene(t, dbPath, 3, "B", "C")
		a, b, c := desks[0], desks[1], desks[2]
		x, y := codes[0], codes[1]
		if v := a.Redeem(t, x, "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A online: %+v", v)
		}
		if u := a.Undo(t, x, "wrong parcel"); u.Server != "undone" {
			t.Fatalf("undo: %+v", u)
		}
		hostileSyncAll(t, 1, a, b, c)
		uid := serverEventID(t, g, "Desk A", protocol.KindUndo, x)
		g.restore(backup)
		squat(t, g, m, uid, y)
		hostileSyncAll(t, 3, a, b, c)
		if status, _ := g.Server(t).StatusAndStation(x); status != "unused" {
			t.Errorf("server: %s %s, want unused (A's redemption and its accepted undo)", x, status)
		}
		if n := g.Server(t).CountConflicts(); n != 0 {
			t.Errorf("%d conflicts on the server", n)
		}
		if n := a.Count(t, `SELECT count(*) FROM undos WHERE refused <> ''`); n != 0 {
			t.Errorf("desk A lists %d refused undos", n)
		}
		if v := c.Redeem(t, x, "zhao"); v.Outcome != app.OutcomeRedeemed {
			t.Errorf("desk C online after the undo: %+v", v)
		}
		hostileSyncAll(t, 2, a, b, c)
		g.reviewConverged(t, map[string]*watchedDesk{"Desk A": a, "Desk B": b, "Desk C": c}, "Desk A", "Desk C")
	})
}

// Attack 4: the squatter takes the id of A's replace (the feed shows it).
// A's replace goes again under a new id: the old label stays disabled at
// the server, the new one valid, and a use of the old one is refused.
func TestTakenReplaceIDGoesAgainUnderANewID(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		g, desks, codes, m, backup := squatScene(t, dbPath, 3, "B", "C")
		a, b, c := desks[0], desks[1], desks[2]
		x, y := codes[0], codes[1]
		nx := a.Replace(t, x, "li")
		hostileSyncAll(t, 1, a, b, c)
		pid := serverEventID(t, g, "Desk A", protocol.KindReplace, x)
		g.restore(backup)
		squat(t, g, m, pid, y)
		hostileSyncAll(t, 3, a, b, c)
		if status, _ := g.Server(t).StatusAndStation(x); status != "disabled" {
			t.Errorf("server: replaced %s is %s, want disabled", x, status)
		}
		if status, _ := g.Server(t).StatusAndStation(nx); status != "unused" {
			t.Errorf("server: the replacement %s is %s, want unused", nx, status)
		}
		if v := c.Redeem(t, x, "zhao"); v.Outcome == app.OutcomeRedeemed {
			t.Errorf("desk C redeemed the replaced label %s online: %+v", x, v)
		}
		if v := c.Redeem(t, nx, "zhao"); v.Outcome != app.OutcomeRedeemed {
			t.Errorf("desk C online, the replacement: %+v", v)
		}
		hostileSyncAll(t, 2, a, b, c)
		g.reviewConverged(t, map[string]*watchedDesk{"Desk A": a, "Desk B": b, "Desk C": c}, "Desk A", "Desk C")
	})
}

// Attack 5: several events of one label in one upload. Desk A, offline,
// redeems X, undoes it and redeems it again; all acknowledged. After a
// restore the squatter takes the ids of both redemptions. A sends the
// three again: X is A's (the second redemption) at the server, no
// conflict, every desk agrees.
func TestTakenIDsOfTwoRedemptionsOfOneLabel(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		g, desks, codes, m, backup := squatScene(t, dbPath, 4, "B", "C")
		a, b, c := desks[0], desks[1], desks[2]
		x := codes[0]
		a.Offline(func() {
			if v := a.Redeem(t, x, "li"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("desk A offline: %+v", v)
			}
			a.Undo(t, x, "wrong parcel")
			if v := a.Redeem(t, x, "li"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("desk A offline, again: %+v", v)
			}
		})
		hostileSyncAll(t, 1, a, b, c)
		var ids []string
		for _, ev := range g.Server(t).Events(serverdbtest.Where{Station: "Desk A", Code: x}) {
			ids = append(ids, ev.EventID)
		}
		if len(ids) != 3 {
			t.Fatalf("desk A's events of X at the server: %v", ids)
		}
		g.restore(backup)
		squat(t, g, m, ids[0], codes[1])
		squat(t, g, m, ids[2], codes[2])
		// Every desk syncs four times; a desk whose every sync fails is
		// wedged (it never reads the feed again).
		failed := map[string][]string{}
		for i := 0; i < 4; i++ {
			for name, d := range map[string]*watchedDesk{"A": a, "B": b, "C": c} {
				if _, err := d.Svc.Sync(context.Background()); err != nil {
					failed[name] = append(failed[name], err.Error())
				}
			}
		}
		for name, errs := range failed {
			t.Errorf("desk %s: %d of 4 syncs failed after the squat: %q", name, len(errs), errs[len(errs)-1])
		}
		if len(failed) > 0 {
			t.FailNow()
		}
		hostileSyncAll(t, 3, a, b, c)
		if status, station := g.Server(t).StatusAndStation(x); status != "used" || station != "Desk A" {
			t.Errorf("server: %s %s at %q, want used at Desk A", x, status, station)
		}
		if n := g.Server(t).CountConflicts(); n != 0 {
			t.Errorf("%d conflicts on the server", n)
		}
		if v := c.Redeem(t, x, "zhao"); v.Outcome != app.OutcomeAlreadyUsed {
			t.Errorf("desk C online: %s, want already_used", v.Outcome)
		}
		hostileSyncAll(t, 2, a, b, c)
		g.reviewConverged(t, map[string]*watchedDesk{"Desk A": a, "Desk B": b, "Desk C": c}, "Desk A")
	})
}

// Attack 6 (the smallest form of attack 5's wedge): desk A, offline,
// redeems X, undoes it and redeems it again; all acknowledged, and desk B
// follows the feed (it holds A's undone redemption under its id). After a
// restore, a stolen token takes the id of A's undone redemption for a
// label Y. Desk B, a bystander, starts over from the restored server's
// snapshot: its copy of Y's redemption must not touch its copy of X.
// Then desk C redeems W online: B must learn W is used.
func TestTakenUndoneRedemptionIDLeavesABystanderDeskWhole(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		g, desks, codes, m, backup := squatScene(t, dbPath, 4, "B", "C")
		a, b, c := desks[0], desks[1], desks[2]
		x, y, w := codes[0], codes[1], codes[2]
		a.Offline(func() {
			a.Redeem(t, x, "li")
			a.Undo(t, x, "wrong parcel")
			a.Redeem(t, x, "li")
		})
		hostileSyncAll(t, 1, a, b, c)
		first := g.Server(t).Event(serverdbtest.Where{Station: "Desk A", Kind: "redeem", Code: x}).EventID
		g.restore(backup)
		squat(t, g, m, first, y)
		a.Sync(t)
		a.Sync(t)
		if v := c.Redeem(t, w, "zhao"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk C online: %+v", v)
		}
		var last error
		fails := 0
		for i := 0; i < 4; i++ {
			if _, err := b.Svc.Sync(context.Background()); err != nil {
				fails, last = fails+1, err
			}
		}
		if fails > 0 {
			t.Errorf("desk B (never attacked, never restored anything) failed %d of 4 syncs: %v", fails, last)
		}
		if st := b.Status(t, w); st != app.StatusUsed {
			t.Errorf("desk B has %s %s; the server has it used by desk C: desk B's copy never converges", w, st)
		}
		// Desk A, whose undo names the taken id, syncs again.
		a.Sync(t)
		a.Sync(t)
		if status, _ := g.Server(t).StatusAndStation(y); status != "used" {
			t.Fatalf("server: %s %s", y, status)
		}
		if st := a.Status(t, y); st != app.StatusUsed {
			t.Errorf("desk A has %s %s after syncing; the server has it used (at Desk M): A would hand it over again offline", y, st)
		}
	})
}

// Attack 7: two desk processes sync the same desk database at once while
// the server answers id_taken for the desk's redemption, with its undo
// waiting behind it. Whatever the interleaving, after they stop the desk
// and the server agree, nothing waits and nothing is refused.
func TestTwoDeskProcessesRenumberATakenIDAtOnce(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		for round := 0; round < 3; round++ {
			g, desks, codes, m, backup := squatScene(t, dbPath, 4, "B")
			a, b := desks[0], desks[1]
			x, y := codes[0], codes[1]
			if v := a.Redeem(t, x, "li"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("desk A online: %+v", v)
			}
			if u := a.Undo(t, x, "wrong parcel"); u.Server != "undone" {
				t.Fatalf("undo: %+v", u)
			}
			if v := a.Redeem(t, x, "li"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("desk A online again: %+v", v)
			}
			hostileSyncAll(t, 1, a, b)
			id := serverEventID(t, g, "Desk A", protocol.KindRedeem, x)
			g.restore(backup)
			squat(t, g, m, id, y)

			// A second process on desk A's database file.
			db2, err := store.Open(context.Background(), a.DB.Path())
			if err != nil {
				t.Fatal(err)
			}
			svc2 := app.NewService(db2, g.Keys, nil)
			svc2.Now = a.Svc.Now
			svc2.Remote = deskclient.New(g.URL, "qrd_test_Desk_A")
			var wg sync.WaitGroup
			errs := make([]error, 2)
			for i, svc := range []*app.Service{a.Svc, svc2} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, errs[i] = svc.Sync(context.Background())
				}()
			}
			wg.Wait()
			t.Logf("round %d: the two syncs at once: %v", round, errs)
			db2.Close()
			hostileSyncAll(t, 2, a, b)
			if status, station := g.Server(t).StatusAndStation(x); status != "used" || station != "Desk A" {
				t.Errorf("round %d: server: %s %s at %q, want used at Desk A", round, x, status, station)
			}
			if n := g.Server(t).CountConflicts(); n != 0 {
				t.Errorf("round %d: %d conflicts on the server", round, n)
			}
			if n := a.Count(t, `SELECT count(*) FROM undos WHERE refused <> ''`); n != 0 {
				t.Errorf("round %d: desk A lists %d refused undos", round, n)
			}
			g.reviewConverged(t, map[string]*watchedDesk{"Desk A": a, "Desk B": b}, "Desk A")
		}
	})
}

// loseAfterTaken loses the answer to the request that follows an id_taken
// refusal (the renumbered event's first send), once.
type loseAfterTaken struct {
	app.Remote
	taken, lost bool
}

func (l *loseAfterTaken) Events(ctx context.Context, ring string, evs []protocol.Event) ([]protocol.Result, error) {
	res, err := l.Remote.Events(ctx, ring, evs)
	var sr *app.ServerRefusal
	switch {
	case errors.As(err, &sr) && sr.IDTaken:
		l.taken = true
	case l.taken && !l.lost:
		l.lost = true
		return nil, fmt.Errorf("%w: connection reset (answer lost)", app.ErrTransient)
	}
	return res, err
}

// Attack 8: the answer to the renumbered redemption is lost (the server
// committed it); the desk sends it again under the new id. Then desk A's
// undo and desk C's scan behave as for one redemption.
func TestRenumberedRedemptionSentAgainAfterItsAnswerIsLost(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		g, desks, codes, m, backup := squatScene(t, dbPath, 3, "C")
		a, c := desks[0], desks[1]
		x, y := codes[0], codes[1]
		if v := a.Redeem(t, x, "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A online: %+v", v)
		}
		hostileSyncAll(t, 1, a, c)
		id := serverEventID(t, g, "Desk A", protocol.KindRedeem, x)
		g.restore(backup)
		squat(t, g, m, id, y)
		lossy := &loseAfterTaken{Remote: a.Svc.Remote}
		a.Svc.Remote = lossy
		if _, err := a.Svc.Sync(context.Background()); err == nil {
			t.Logf("desk A's sync with the answer lost did not fail")
		}
		if !lossy.lost {
			t.Fatalf("no id_taken answer came")
		}
		hostileSyncAll(t, 2, a, c)
		if v := c.Redeem(t, x, "zhao"); v.Outcome != app.OutcomeAlreadyUsed {
			t.Errorf("desk C online: %s, want already_used", v.Outcome)
		}
		if n := g.Server(t).CountConflicts(); n != 0 {
			t.Errorf("%d conflicts on the server", n)
		}
		if u := a.Undo(t, x, "wrong parcel"); u.Server != "undone" {
			t.Errorf("desk A's undo: %+v", u)
		}
		hostileSyncAll(t, 2, a, c)
		g.reviewConverged(t, map[string]*watchedDesk{"Desk A": a, "Desk C": c}, "Desk A")
	})
}

// Attack 9: the squatter takes the id of an expiry of desk A's close of
// day (the feed shows it). A sends it again under a new id: the label is
// expired at the server and everywhere.
func TestTakenExpiryIDGoesAgainUnderANewID(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		g, desks, codes, m, backup := squatScene(t, dbPath, 3, "C")
		a, c := desks[0], desks[1]
		x, y := codes[0], codes[1]
		a.CloseDay(t, true)
		hostileSyncAll(t, 1, a, c)
		id := serverEventID(t, g, "Desk A", protocol.KindExpire, x)
		if status, _ := g.Server(t).StatusAndStation(x); status != "expired" {
			t.Fatalf("server: %s %s after the close of day", x, status)
		}
		g.restore(backup)
		squat(t, g, m, id, y)
		hostileSyncAll(t, 3, a, c)
		if status, _ := g.Server(t).StatusAndStation(x); status != "expired" {
			t.Errorf("server: %s %s, want expired (desk A's close of day)", x, status)
		}
		if v := c.Redeem(t, x, "zhao"); v.Outcome == app.OutcomeRedeemed {
			t.Errorf("desk C redeemed %s, expired by desk A's close of day: %+v", x, v)
		}
		hostileSyncAll(t, 1, a, c)
		g.reviewConverged(t, map[string]*watchedDesk{"Desk A": a, "Desk C": c})
	})
}

// Attack 10: after the restore and the squat, before desk A syncs, its
// supervisor undoes A's redemption of X (online: the server answers). The
// undo names the taken id. After everyone syncs, the server and the desks
// agree on X, and an undo the server refused is not counted as done.
func TestUndoOfARedemptionWhoseIDIsTaken(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		g, desks, codes, m, backup := squatScene(t, dbPath, 3, "C")
		a, c := desks[0], desks[1]
		x, y := codes[0], codes[1]
		if v := a.Redeem(t, x, "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A online: %+v", v)
		}
		hostileSyncAll(t, 1, a, c)
		id := serverEventID(t, g, "Desk A", protocol.KindRedeem, x)
		g.restore(backup)
		squat(t, g, m, id, y)
		u := a.Undo(t, x, "wrong parcel")
		t.Logf("desk A's undo before its sync: %+v", u)
		hostileSyncAll(t, 3, a, c)
		status, _ := g.Server(t).StatusAndStation(x)
		if st := a.Status(t, x); string(st) != status {
			t.Errorf("desk A has %s %s, the server %s", x, st, status)
		}
		refused := a.Count(t, `SELECT count(*) FROM undos WHERE refused <> ''`)
		t.Logf("server: %s %s; desk A's undo refused: %d", x, status, refused)
		if status == "used" && refused == 0 {
			t.Errorf("the server holds X used, but desk A does not list its undo as refused")
		}
		if status == "unused" && refused != 0 {
			t.Errorf("the server holds X unused, but desk A lists its undo as refused")
		}
		if n := g.Server(t).CountConflicts(); n != 0 {
			t.Errorf("%d conflicts on the server", n)
		}
		g.reviewConverged(t, map[string]*watchedDesk{"Desk A": a, "Desk C": c}, "Desk A")
	})
}

// Control for attack 2 (held): the same two restores with no squat: no
// conflict, the undo accepted. The conflict of attack 2 is the renumbering's.
func TestTwoRestoresWithoutATakenIDMakeNoConflict(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		g := newRestorable(t, dbPath)
		a, c := g.deskAt(t, "Desk A", "A"), g.deskAt(t, "Desk C", "C")
		codes := a.Issue(t, 3)
		hostileSyncAll(t, 1, a, c)
		backup0 := g.backup()
		x := codes[0]
		if v := a.Redeem(t, x, "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A online: %+v", v)
		}
		hostileSyncAll(t, 1, a, c)
		backup1 := g.backup()
		g.restore(backup0)
		a.Sync(t)
		a.Sync(t)
		g.restore(backup1)
		hostileSyncAll(t, 3, a, c)
		if n := g.Server(t).CountConflicts(); n != 0 {
			t.Errorf("%d conflicts on the server", n)
		}
		if u := a.Undo(t, x, "wrong parcel"); u.Server != "undone" {
			t.Errorf("desk A's undo: %+v", u)
		}
	})
}
