package multidesk_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// An undo of a desk's own online redemption is sent at once, applied by
// the server, and reaches the other desks through the feed; the label can
// then be redeemed at any desk.
func TestUndoTravels(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 2)
		if v := a.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A: %+v", v)
		}
		b.Sync(t)
		if b.Status(t, codes[0]) != app.StatusUsed {
			t.Fatal("desk B did not learn of the redemption")
		}
		h.Now = h.Now.Add(time.Minute)
		u := a.Undo(t, codes[0], "scanned the wrong parcel")
		if u.Server != "undone" || u.Status != app.StatusUnused {
			t.Fatalf("undo: %+v, want the server's confirmation at once", u)
		}
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM codes WHERE code = ? AND status = 'unused' AND used_event = ''`, codes[0]); n != 1 {
			t.Fatal("the server did not put the label back to unused")
		}
		b.Sync(t)
		if got := b.Status(t, codes[0]); got != app.StatusUnused {
			t.Fatalf("desk B after the feed: %s, want unused", got)
		}
		if n := b.Count(t, `SELECT count(*) FROM undos WHERE event_id = ? AND station = 'Desk A' AND reason = 'scanned the wrong parcel'`, u.EventID); n != 1 {
			t.Fatal("desk B's history has no undo row")
		}
		if v := b.Redeem(t, codes[0], "wang"); v.Outcome != app.OutcomeRedeemed || v.UsedStation != "Desk B" {
			t.Fatalf("desk B redeeming the undone label: %+v", v)
		}
		a.Sync(t)
		if v, _ := a.Svc.Check(context.Background(), codes[0]); v.Outcome != app.OutcomeAlreadyUsed || v.UsedStation != "Desk B" {
			t.Fatalf("desk A after desk B's redemption: %+v", v)
		}
	})
}

// The redemption of record went to another desk (it redeemed earlier,
// both offline): the server refuses the undo, the desk shows why and its
// label is used again, as everywhere else.
func TestUndoRefusedForAnotherDesksRecord(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 1)
		remoteA, remoteB := a.Svc.Remote, b.Svc.Remote
		a.Svc.Remote, b.Svc.Remote = nil, nil // both offline
		if v := b.Redeem(t, codes[0], "wang"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk B offline: %+v", v)
		}
		h.Now = h.Now.Add(time.Minute)
		if v := a.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A offline: %+v", v)
		}
		h.Now = h.Now.Add(time.Minute)
		u := a.Undo(t, codes[0], "wrong parcel")
		if u.Server != "" || a.Status(t, codes[0]) != app.StatusUnused {
			t.Fatalf("offline undo: %+v", u)
		}
		a.Svc.Remote, b.Svc.Remote = remoteA, remoteB
		b.Sync(t) // desk B's redemption reaches the server first: the one of record
		a.Sync(t)
		got, err := a.DB.UndoResult(context.Background(), u.EventID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Server != "refused" || !strings.Contains(got.ServerReason, "Desk B") {
			t.Fatalf("undo after the sync: %+v, want refused naming Desk B", got)
		}
		if a.Status(t, codes[0]) != app.StatusUsed {
			t.Fatal("desk A keeps the label unused although the server has it used")
		}
		if n := a.Count(t, `SELECT count(*) FROM audit WHERE action = 'undo_refused' AND detail LIKE '%Desk B%'`); n != 1 {
			t.Fatal("the label's history does not show the refusal")
		}
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM codes WHERE code = ? AND status = 'used' AND used_station = 'Desk B'`, codes[0]); n != 1 {
			t.Fatal("the server's record changed")
		}
		if list, err := a.Svc.RefusedUndos(context.Background()); err != nil || len(list) != 1 || list[0].EventID != u.EventID || !strings.Contains(list[0].ServerReason, "Desk B") {
			t.Fatalf("refused undos %+v %v, want the one undo naming Desk B", list, err)
		}
		st, _ := a.DB.SyncState(context.Background())
		if st.Rejected != 1 {
			t.Fatalf("sync state %+v, want the refused undo counted", st)
		}
	})
}

// A desk undoes its online redemption while the server cannot be reached;
// before its undo is uploaded, the feed brings the redemption (its own)
// back. The label stays unused, and once the undo is uploaded every desk
// agrees.
func TestUndoRacesFeed(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 1)
		if v := a.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A: %+v", v)
		}
		remote := a.Svc.Remote
		a.Svc.Remote = nil
		a.Undo(t, codes[0], "wrong parcel")
		a.Svc.Remote = remote
		st, _ := a.DB.SyncState(context.Background())
		changes, err := h.DB.Changes(context.Background(), st.Cursor, 100)
		if err != nil || len(changes) == 0 {
			t.Fatalf("feed: %v %v", changes, err)
		}
		if err := a.DB.ApplyChanges(context.Background(), changes, changes[len(changes)-1].Seq); err != nil {
			t.Fatal(err)
		}
		if got := a.Status(t, codes[0]); got != app.StatusUnused {
			t.Fatalf("after its own redemption came back through the feed: %s, want unused", got)
		}
		a.Sync(t)
		b.Sync(t)
		for _, d := range []*centraltest.Desk{a, b} {
			if got := d.Status(t, codes[0]); got != app.StatusUnused {
				t.Fatalf("after the undo was uploaded: %s, want unused", got)
			}
		}
		if n := h.Server(t).CountLabel(codes[0], "unused"); n != 1 {
			t.Fatal("the server did not apply the undo")
		}
	})
}

// An undo event sent twice is applied once; the same id with other
// content is refused.
func TestUndoReplayed(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 2)
		tok := h.Station(t, "Desk 1", "A")
		other := h.Station(t, "Desk 2", "B")
		h.Upload(t, tok)
		at := h.Now.Unix()
		redeem := protocol.Event{EventID: "redeem-event-1", Kind: "redeem", Code: h.Codes[0], Operator: "li", At: at}
		var r protocol.Result
		if st := h.Call(t, "POST", "/v1/redeem", tok, h.Ring, redeem, &r); st != 200 || r.Outcome != "redeemed" {
			t.Fatalf("redeem: %d %+v", st, r)
		}
		undo := protocol.Event{EventID: "undo-event-1", Kind: "undo", Code: h.Codes[0], Operator: "boss", At: at + 60, Reason: "wrong parcel", Undoes: redeem.EventID}
		var out struct{ Results []protocol.Result }
		// Another desk cannot undo desk 1's redemption.
		stolen := undo
		stolen.EventID = "undo-event-other"
		if st := h.Call(t, "POST", "/v1/events", other, h.Ring, map[string]any{"events": []protocol.Event{stolen}}, &out); st != 200 || out.Results[0].Outcome != "rejected" || !strings.Contains(out.Results[0].Reason, "Desk 1") {
			t.Fatalf("undo by another desk: %d %+v", st, out)
		}
		for i := 0; i < 2; i++ {
			if st := h.Call(t, "POST", "/v1/events", tok, h.Ring, map[string]any{"events": []protocol.Event{undo}}, &out); st != 200 || out.Results[0].Outcome != "undone" || out.Results[0].Duplicate != (i == 1) {
				t.Fatalf("undo #%d: %d %+v", i+1, st, out)
			}
		}
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM changes WHERE kind = 'undo'`); n != 1 {
			t.Fatalf("%d undo changes in the feed, want 1", n)
		}
		// Redeemed again; the replay must not undo the new redemption.
		again := protocol.Event{EventID: "redeem-event-2", Kind: "redeem", Code: h.Codes[0], Operator: "wang", At: at + 120}
		if st := h.Call(t, "POST", "/v1/redeem", tok, h.Ring, again, &r); st != 200 || r.Outcome != "redeemed" {
			t.Fatalf("redeem again: %d %+v", st, r)
		}
		h.Call(t, "POST", "/v1/events", tok, h.Ring, map[string]any{"events": []protocol.Event{undo}}, &out)
		if !out.Results[0].Duplicate {
			t.Fatalf("replay after a new redemption: %+v", out)
		}
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM codes WHERE code = ? AND status = 'used' AND used_event = 'redeem-event-2'`, h.Codes[0]); n != 1 {
			t.Fatal("a replayed undo took back the new redemption")
		}
		reused := undo
		reused.Undoes = "redeem-event-2"
		var refusal struct{ Code string }
		if st := h.Call(t, "POST", "/v1/events", tok, h.Ring, map[string]any{"events": []protocol.Event{reused}}, &refusal); st != 409 || refusal.Code != app.RefusedEventReused {
			t.Fatalf("same id, other redemption: %d %+v, want 409 event_reused", st, refusal)
		}
		bad := undo
		bad.EventID, bad.Undoes = "undo-event-2", ""
		if st := h.Call(t, "POST", "/v1/events", tok, h.Ring, map[string]any{"events": []protocol.Event{bad}}, &refusal); st != 400 {
			t.Fatalf("undo naming no redemption: %d, want 400", st)
		}
	})
}

// A desk undoes while the server cannot be reached, and the label is
// scanned again once it can: the desk decides that scan itself (the server
// still has the label used), so the redemption follows the undo in the
// outbox and every desk ends with the new redemption.
func TestRescanBeforeUndoUploaded(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 1)
		if v := a.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A: %+v", v)
		}
		remote := a.Svc.Remote
		a.Svc.Remote = nil
		a.Undo(t, codes[0], "wrong parcel")
		a.Svc.Remote = remote
		h.Now = h.Now.Add(time.Minute)
		v := a.Redeem(t, codes[0], "wang")
		if v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("the rescan at desk A: %+v, want redeemed (the label is unused here)", v)
		}
		a.Sync(t)
		b.Sync(t)
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM codes WHERE code = ? AND status = 'used' AND used_event = ?`, codes[0], v.TraceID); n != 1 {
			t.Fatal("the server does not have the rescan as the redemption of record")
		}
		for _, d := range []*centraltest.Desk{a, b} {
			if got, _ := d.Svc.Check(context.Background(), codes[0]); got.Outcome != app.OutcomeAlreadyUsed || got.UsedOperator != "wang" {
				t.Fatalf("a desk after the sync: %+v, want used by wang", got)
			}
		}
	})
}

// A desk that was away while a redemption it knew of was undone, and whose
// place in the feed was compacted meanwhile, learns of the undo from the
// snapshot it starts over from.
func TestUndoReachesDeskAway(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 2)
		away := h.Desk(t, "Desk S", "S", h.Station(t, "Desk S", "S"))
		a.Redeem(t, codes[0], "li")
		a.Redeem(t, codes[1], "li")
		away.Sync(t)
		if away.Status(t, codes[0]) != app.StatusUsed {
			t.Fatal("desk S did not learn of the redemption")
		}
		h.Now = h.Now.Add(time.Minute)
		if u := a.Undo(t, codes[0], "wrong parcel"); u.Server != "undone" {
			t.Fatalf("undo: %+v", u)
		}
		a.Sync(t)
		b.Sync(t)
		// Desk S stays away eight days: it does not hold the feed back.
		// (The undo is within its window by the server's clock: the server
		// judges it too, central.UndoTooLate.)
		h.Now = h.Now.Add(8 * 24 * time.Hour)
		a.Sync(t)
		b.Sync(t)
		h.Compact(t, h.Now.Add(-7*24*time.Hour).Unix())
		away.Sync(t)
		sameState(t, h, "S (away during the undo)", away)
		if away.Status(t, codes[1]) != app.StatusUsed {
			t.Fatal("a redemption that was not undone was taken back")
		}
	})
}
