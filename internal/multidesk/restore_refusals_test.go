package multidesk_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/serverdbtest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// What a restored server must get back from the desks, and what it must
// not: found by the property test (internal/faultsim seeds 525, 211 and
// 152 on SQLite).

// TestRestoreRefusedScanStaysRefused: desk A redeems X online and a
// supervisor undoes it; the server is restored from a backup that still
// holds the redemption. A scans X again online before it syncs: the
// restored server answers "already used" (by A), and the clerk hands
// nothing over. When A then finds the restore and sends everything again,
// that refused scan must not go as a redemption: the server would record a
// handover nobody was told of.
func TestRestoreRefusedScanStaysRefused(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		g := newRestorable(t, dbPath)
		a := g.deskAt(t, "Desk A", "A")
		x := a.Issue(t, 2)[0]
		a.Sync(t)
		if v := a.Redeem(t, x, "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A online: %+v", v)
		}
		backup := g.backup()
		if u := a.Undo(t, x, "wrong parcel"); u.Server != "undone" {
			t.Fatalf("undo: %+v, want undone by the server", u)
		}

		g.restore(backup)
		refused := a.Redeem(t, x, "li")
		if refused.Outcome != app.OutcomeAlreadyUsed {
			t.Fatalf("desk A's scan on the restored server: %+v, want already used", refused)
		}
		a.Sync(t)
		a.Sync(t)
		if a.restarts() == 0 {
			t.Fatal("desk A never found that the server was restored")
		}
		if status, _ := g.Server(t).StatusAndStation(x); status != "unused" {
			t.Errorf("the server has %s %s, want unused (the undo sent again; the refused scan is no redemption)", x, status)
		}
		if n := centraltest.Count(t, g.DB, `SELECT count(*) FROM events WHERE kind = 'redeem' AND outcome = 'redeemed' AND code = ?`, x); n != 1 {
			t.Errorf("the server holds %d redemptions of %s, want 1 (the one that was undone)", n, x)
		}
		if got := a.Status(t, x); got != app.StatusUnused {
			t.Errorf("desk A has %s %s, want unused as the server", x, got)
		}
	})
}

// TestRestoreToBeforeTheRefusedScan is the soak's SQLite seed 100883018:
// as TestRestoreRefusedScanStaysRefused, but the server is then restored
// again, from a backup older than A's redemption of X. Starting over from
// that snapshot (which holds X unused), A meets the redemption it kept
// from the answer "already used by Desk A": it bears A's name and the id
// of the refused scan, and it is not A's own. It must be dropped, not sent
// as A's redemption: the server would hold a handover the clerk was
// refused.
func TestRestoreToBeforeTheRefusedScan(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		g := newRestorable(t, dbPath)
		a := g.deskAt(t, "Desk A", "A")
		x := a.Issue(t, 2)[0]
		a.Sync(t)
		before := g.backup()
		if v := a.Redeem(t, x, "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A online: %+v", v)
		}
		redeemed := g.backup()
		if u := a.Undo(t, x, "wrong parcel"); u.Server != "undone" {
			t.Fatalf("undo: %+v, want undone by the server", u)
		}

		g.restore(redeemed)
		refused := a.Redeem(t, x, "li")
		if refused.Outcome != app.OutcomeAlreadyUsed {
			t.Fatalf("desk A's scan on the restored server: %+v, want already used", refused)
		}
		g.restore(before)
		a.Sync(t)
		a.Sync(t)
		if a.restarts() == 0 {
			t.Fatal("desk A never found that the server was restored")
		}
		if n := len(g.Server(t).Events(serverdbtest.Where{EventID: refused.TraceID})); n != 0 {
			t.Errorf("the server holds desk A's refused scan of %s (%s) as an event: a handover the clerk was refused", x, refused.TraceID)
		}
		if status, _ := g.Server(t).StatusAndStation(x); status != "unused" {
			t.Errorf("the server has %s %s, want unused (redeemed and undone, both sent again)", x, status)
		}
		if got := a.Status(t, x); got != app.StatusUnused {
			t.Errorf("desk A has %s %s, want unused as the server", x, got)
		}
	})
}

// TestRestoreRevivesUndoneRedemptionElsewhere: desk A redeems X online;
// after the backup a supervisor undoes it, and desk C learns the undo from
// the feed. The server is restored (it holds the redemption, not the
// undo). C starts over from the restored server's snapshot: it must hold X
// used as the server does, not keep the undo the server no longer has; and
// once A sends its undo again every desk holds X unused.
func TestRestoreRevivesUndoneRedemptionElsewhere(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		g := newRestorable(t, dbPath)
		a, c := g.deskAt(t, "Desk A", "A"), g.deskAt(t, "Desk C", "C")
		x := a.Issue(t, 2)[0]
		a.Sync(t)
		c.Sync(t)
		if v := a.Redeem(t, x, "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A online: %+v", v)
		}
		backup := g.backup()
		if u := a.Undo(t, x, "wrong parcel"); u.Server != "undone" {
			t.Fatalf("undo: %+v, want undone by the server", u)
		}
		c.Sync(t)
		if got := c.Status(t, x); got != app.StatusUnused {
			t.Fatalf("desk C before the restore: %s %s, want unused", x, got)
		}

		g.restore(backup)
		c.Sync(t)
		if c.restarts() == 0 {
			t.Fatal("desk C never found that the server was restored")
		}
		if status, _ := g.Server(t).StatusAndStation(x); status != "used" {
			t.Fatalf("the restored server has %s %s, want used", x, status)
		}
		if got := c.Status(t, x); got != app.StatusUsed {
			t.Errorf("desk C after starting over: %s %s, want used as the restored server", x, got)
		}
		a.Sync(t)
		c.Sync(t)
		for name, d := range map[string]*watchedDesk{"A": a, "C": c} {
			if got := d.Status(t, x); got != app.StatusUnused {
				t.Errorf("desk %s once A sent its undo again: %s %s, want unused", name, x, got)
			}
		}
		if status, _ := g.Server(t).StatusAndStation(x); status != "unused" {
			t.Errorf("the server has %s %s, want unused (the undo sent again)", x, status)
		}
	})
}

// TestRestoreKeepsRefusedReplacementVoid: desk B disables X; desk A, which
// has not heard, replaces X by Y. The server refuses the replacement (X is
// disabled): Y is void, disabled at the server and at A. The server is
// restored from a backup taken before Y existed; A sends its batches again,
// Y among them. The restored server must hold Y void as well, or Y would
// be a second valid label for X's entitlement at every other desk.
func TestRestoreKeepsRefusedReplacementVoid(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		g := newRestorable(t, dbPath)
		a, b := g.deskAt(t, "Desk A", "A"), g.deskAt(t, "Desk B", "B")
		x := a.Issue(t, 2)[0]
		a.Sync(t)
		b.Sync(t)
		if _, err := b.Svc.SetDisabled(context.Background(), x, true, "damaged label", "boss"); err != nil {
			t.Fatal(err)
		}
		b.Sync(t)
		backup := g.backup()
		var y string
		a.Offline(func() { y = a.Replace(t, x, "li") })
		a.Sync(t)
		a.Sync(t)
		if status, _ := g.Server(t).StatusAndStation(y); status != "disabled" {
			t.Fatalf("before the restore the server has %s %s, want disabled (void)", y, status)
		}
		if got := a.Status(t, y); got != app.StatusDisabled {
			t.Fatalf("desk A before the restore: %s %s, want disabled (void)", y, got)
		}

		g.restore(backup)
		a.Sync(t)
		a.Sync(t)
		if a.restarts() == 0 {
			t.Fatal("desk A never found that the server was restored")
		}
		if status, _ := g.Server(t).StatusAndStation(y); status != "disabled" {
			t.Errorf("the restored server has %s %s, want disabled: the replacement was refused", y, status)
		}
		if got := a.Status(t, y); got != app.StatusDisabled {
			t.Errorf("desk A: %s %s, want disabled (void)", y, got)
		}
	})
}

// TestRestoreScanOfReplacedLabelStaysAtTheDesk: desk D replaces X by Y
// after the backup and desk A redeems Y. The server is restored: it holds
// neither the replacement nor Y. A starts over (X is unused at the
// server) and still knows it handed Y over. A scan of X at A is refused
// there, without asking the server: asked, the restored server would
// redeem X (a second parcel for one entitlement), and an answer that came
// too late, A then refusing alone, would leave the server holding a
// handover the clerk was refused.
func TestRestoreScanOfReplacedLabelStaysAtTheDesk(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		g := newRestorable(t, dbPath)
		a, d := g.deskAt(t, "Desk A", "A"), g.deskAt(t, "Desk D", "D")
		x := a.Issue(t, 2)[0]
		a.Sync(t)
		d.Sync(t)
		backup := g.backup()
		y := d.Replace(t, x, "li")
		d.Sync(t)
		a.Sync(t)
		if v := a.Redeem(t, y, "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A redeems the replacement: %+v", v)
		}

		g.restore(backup)
		a.Sync(t)
		if a.restarts() == 0 {
			t.Fatal("desk A never found that the server was restored")
		}
		v := a.Redeem(t, x, "wang")
		if v.Outcome != app.OutcomeAlreadyUsed || v.UsedCode != y {
			t.Fatalf("desk A scans the replaced label: %+v, want already used (its replacement %s)", v, y)
		}
		if n := len(g.Server(t).Events(serverdbtest.Where{Code: x, Kind: "redeem"})); n != 0 {
			t.Errorf("desk A asked the server about %s (%d events): it knew the entitlement was used", x, n)
		}
	})
}

// TestRestoreDropsConflictOfLabelTheServerLacks: desk D issues Y after the
// backup; D redeems it online and desk B, offline, too: a conflict that
// desk A learns. The server is restored; A starts over before D sends its
// batch again, so the restored server holds neither Y nor the conflict. A
// must not go on listing a conflict the server does not have (the desks
// sending again make it anew).
func TestRestoreDropsConflictOfLabelTheServerLacks(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		g := newRestorable(t, dbPath)
		a, b, d := g.deskAt(t, "Desk A", "A"), g.deskAt(t, "Desk B", "B"), g.deskAt(t, "Desk D", "D")
		a.Issue(t, 1)
		for _, k := range []*watchedDesk{a, b, d} {
			k.Sync(t)
		}
		backup := g.backup()
		y := d.Issue(t, 1)[0]
		d.Sync(t)
		b.Sync(t)
		if v := d.Redeem(t, y, "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk D online: %+v", v)
		}
		b.Offline(func() {
			if v := b.Redeem(t, y, "wang"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("desk B offline: %+v", v)
			}
		})
		b.Sync(t)
		a.Sync(t)
		if list, err := a.Svc.Conflicts(context.Background()); err != nil || len(list) != 1 {
			t.Fatalf("desk A before the restore: conflicts %+v %v, want one", list, err)
		}

		g.restore(backup)
		a.Sync(t)
		if a.restarts() == 0 {
			t.Fatal("desk A never found that the server was restored")
		}
		if list, err := a.Svc.Conflicts(context.Background()); err != nil || len(list) != 0 {
			t.Errorf("desk A after starting over: conflicts %+v %v, want none (the restored server has none)", list, err)
		}
	})
}

// TestOnlineRefusalTakenOverGetsAWriteNumber: desk A asked online about X
// (already used at B: refused), gave up waiting and redeemed X alone; its
// upload turns the server's record of the refused attempt into a conflict.
// That decision is a write of its own, with a number above the attempt's:
// a server restored from a backup that holds the attempt but not the
// conflict has then given fewer numbers than A holds, and A sends its
// redemption again (numbered as the attempt, the restore went unnoticed and
// the double use was lost).
func TestOnlineRefusalTakenOverGetsAWriteNumber(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 3)
		a, b := h.Station(t, "Desk 1", "A"), h.Station(t, "Desk 2", "B")
		h.Upload(t, a)
		x, at := h.Codes[0], h.Now.Unix()
		var first, online protocol.Result
		h.Call(t, "POST", "/v1/redeem", b, h.Ring, protocol.Event{EventID: "b-online", Code: x, Operator: "wang", At: at}, &first)
		h.Call(t, "POST", "/v1/redeem", a, h.Ring, protocol.Event{EventID: "a-gave-up", Code: x, Operator: "li", At: at}, &online)
		if first.Outcome != protocol.OutcomeRedeemed || online.Outcome != protocol.OutcomeAlreadyUsed || online.Write == 0 {
			t.Fatalf("online: B %+v, A %+v", first, online)
		}
		var up struct{ Results []protocol.Result }
		h.Call(t, "POST", "/v1/events", a, h.Ring, map[string]any{"events": []protocol.Event{{EventID: "a-gave-up", Kind: protocol.KindRedeem, Code: x, Operator: "li", At: at, Offline: true}}}, &up)
		if len(up.Results) != 1 || up.Results[0].Outcome != protocol.OutcomeConflict {
			t.Fatalf("upload: %+v, want a conflict", up.Results)
		}
		if up.Results[0].Write <= online.Write {
			t.Errorf("the conflict has write number %d, the refused attempt %d: want a number of its own, above", up.Results[0].Write, online.Write)
		}
	})
}

// TestRefusedEnableSaysTheLabelIsUsed: X is replaced by Y (X disabled);
// desk B redeems X offline (used at the server, flagged); desk C, offline
// and not told of the replacement, disables X and enables it again. The server refuses the enable (Y is valid) and its answer
// carries X's status, used: C's copy takes it (an answer saying disabled
// left C at disabled for good while every other desk had X used).
func TestRefusedEnableSaysTheLabelIsUsed(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		g := newRestorable(t, dbPath)
		a, b, c := g.deskAt(t, "Desk A", "A"), g.deskAt(t, "Desk B", "B"), g.deskAt(t, "Desk C", "C")
		x := a.Issue(t, 2)[0]
		for _, d := range []*watchedDesk{a, b, c} {
			d.Sync(t)
		}
		a.Replace(t, x, "li")
		a.Sync(t)
		b.Offline(func() {
			if v := b.Redeem(t, x, "wang"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("desk B offline: %+v", v)
			}
		})
		b.Sync(t)
		c.Offline(func() { // C has not heard of the replacement
			for _, disable := range []bool{true, false} {
				if _, err := c.Svc.SetDisabled(context.Background(), x, disable, "torn label", "boss"); err != nil {
					t.Fatalf("desk C disables (%v) %s: %v", disable, x, err)
				}
			}
		})
		c.Sync(t)
		c.Sync(t)
		if status, _ := g.Server(t).StatusAndStation(x); status != "used" {
			t.Fatalf("the server has %s %s, want used", x, status)
		}
		if got := c.Status(t, x); got != app.StatusUsed {
			t.Errorf("desk C: %s %s, want used as the server", x, got)
		}
		if n := c.Count(t, `SELECT count(*) FROM outbox WHERE kind = 'enable' AND state = 'rejected' AND json_extract(result, '$.status') = 'used'`); n != 1 {
			t.Errorf("the server's answer to C's enable does not say %s is used (%d answers say so)", x, n)
		}
	})
}

// TestRefusedUndoKeepsTheDesksFigures: desk A redeems X online; desk B,
// offline, redeems X too (a conflict). A's supervisor, offline, undoes A's
// redemption, and a clerk at A hands X over again. The server refuses the
// undo (a conflict is a supervisor's to settle) and records A's second
// handover as a double use: A's first redemption stands. A's own day
// figures must still equal its row on the dashboard (the refused undo put
// the label back to used, but left the redemption it took back undone).
func TestRefusedUndoKeepsTheDesksFigures(t *testing.T) {
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
		b.Offline(func() { b.Redeem(t, x, "wang") })
		b.Sync(t)
		a.Offline(func() {
			if u := a.Undo(t, x, "wrong parcel"); u.Server == "undone" {
				t.Fatalf("undo offline: %+v", u)
			}
			if v := a.Redeem(t, x, "li"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("desk A offline, after its undo: %+v", v)
			}
		})
		a.Sync(t)
		a.Sync(t)
		g.figuresAgree(t, a, "Desk A")
	})
}

// TestRestoreFoundThoughTheCounterCaughtUp: desk A's online redemption of
// X is answered after the backup. The server is restored; before A syncs,
// requests of A reach it whose answers never reach A (a network dropping
// answers), so the station's write counter climbs back to the highest
// number A holds. At its enrolment A names that write (its number and the
// event it was given for); the server does not hold it, so A starts over
// and sends its redemption again.
func TestRestoreFoundThoughTheCounterCaughtUp(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		g := newRestorable(t, dbPath)
		token := g.Station(t, "Desk A", "A")
		a := &watchedDesk{Desk: g.Desk(t, "Desk A", "A", token)}
		a.Svc.Log = slog.New(&a.log)
		codes := a.Issue(t, 6)
		a.Sync(t)
		backup := g.backup()
		x := codes[0]
		if v := a.Redeem(t, x, "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A online: %+v", v)
		}

		g.restore(backup)
		for i, code := range codes[1:3] { // answered into the void
			var r protocol.Result
			g.Call(t, "POST", "/v1/redeem", token, g.Ring, protocol.Event{EventID: fmt.Sprintf("lost-answer-%d", i), Code: code, Operator: "li", At: g.Now.Unix()}, &r)
		}
		a.Sync(t)
		if a.restarts() == 0 {
			t.Fatal("desk A did not find that the server was restored")
		}
		if status, station := g.Server(t).StatusAndStation(x); status != "used" || station != "Desk A" {
			t.Errorf("the server has %s %s (%s), want used by Desk A: an acknowledged redemption was lost", x, status, station)
		}
	})
}
