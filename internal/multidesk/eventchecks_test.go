package multidesk_test

import (
	"context"
	"strings"
	"testing"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// What the server checks of what a desk sends: its field limits agree with
// the desk's, an event id is bound to its content, a code's letter to its
// station. Each runs on both engines (unless it says otherwise) with real
// desks (their own SQLite files, the real sync code) on loopback. "Defect
// N" numbers the multi-desk defects found by trying the server as a hostile
// user would.

// Defect 2: the desk and the server had different field limits, so the
// desk decided what the server then rejected.
func TestFieldLimitsAgree(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 4)
		chinese := strings.Repeat("张", 34) // 102 bytes: over the old server limit
		if v := a.Redeem(t, codes[0], chinese); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("34-character operator: %+v", v)
		}
		if op := h.Server(t).Label(codes[0]).UsedOperator; op != chinese {
			t.Fatalf("the server has operator %q", op)
		}
		if _, err := a.Svc.Redeem(context.Background(), codes[1], strings.Repeat("张", 41)); app.KindOf(err) != app.KindInvalid || !strings.Contains(app.ErrorMessage(err), "at most 40") {
			t.Fatalf("41-character operator: %v, want a clear refusal", err)
		}
		reason := strings.Repeat("损", 175) // 525 bytes, 175 characters
		if _, err := a.Svc.SetDisabled(context.Background(), codes[1], true, reason, "li"); err != nil {
			t.Fatal(err)
		}
		a.Sync(t)
		if n := a.Count(t, `SELECT count(*) FROM outbox WHERE state <> 'sent'`); n != 0 {
			t.Fatalf("%d events not accepted by the server", n)
		}
		b.Sync(t)
		if v := b.Redeem(t, codes[1], "wang"); v.Outcome != app.OutcomeDisabled || v.Reason != reason && v.DisabledReason != reason {
			t.Fatalf("desk B redeemed the disabled label: %+v", v)
		}
		if _, err := a.Svc.SetDisabled(context.Background(), codes[2], true, strings.Repeat("损", 201), "li"); app.KindOf(err) != app.KindInvalid {
			t.Fatalf("201-character reason: %v, want a clear refusal", err)
		}
	})
}

// Defect 4: an event id was trusted whatever it carried.
func TestEventIDBoundToContent(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 3)
		a, b := h.Station(t, "Desk 1", "A"), h.Station(t, "Desk 2", "B")
		h.Upload(t, a)
		at := h.Now.Unix()
		first := protocol.Event{EventID: "bound-event-1", Kind: "redeem", Code: h.Codes[0], Operator: "li", At: at}
		var r protocol.Result
		if st := h.Call(t, "POST", "/v1/redeem", a, h.Ring, first, &r); st != 200 || r.Outcome != "redeemed" {
			t.Fatalf("first: %d %+v", st, r)
		}
		// taken: the id is another desk's event, and the desk that sent it
		// is told so (it sends its event again under a new id).
		for _, tc := range []struct {
			name  string
			token string
			ev    protocol.Event
			taken bool
		}{
			{"OtherCode", a, protocol.Event{EventID: first.EventID, Kind: "redeem", Code: h.Codes[1], Operator: "li", At: at}, false},
			{"OtherKind", a, protocol.Event{EventID: first.EventID, Kind: "disable", Code: h.Codes[0], Operator: "li", At: at, Reason: "torn"}, false},
			{"OtherDesk", b, first, true},
			{"OtherDeskOtherCode", b, protocol.Event{EventID: first.EventID, Kind: "redeem", Code: h.Codes[1], Operator: "wang", At: at}, true},
			{"OtherTime", a, protocol.Event{EventID: first.EventID, Kind: "redeem", Code: h.Codes[0], Operator: "li", At: at + 1}, false},
		} {
			t.Run(tc.name, func(t *testing.T) {
				var out struct {
					Error, Code string
					IDTaken     bool `json:"id_taken"`
				}
				st := h.Call(t, "POST", "/v1/events", tc.token, h.Ring, map[string]any{"events": []protocol.Event{tc.ev}}, &out)
				if st != 409 || out.Code != app.RefusedEventReused || out.IDTaken != tc.taken {
					t.Fatalf("reused id: %d %+v, want 409 event_reused, id_taken %v", st, out, tc.taken)
				}
			})
		}
		if n := h.Server(t).CountLabel(h.Codes[1], "unused"); n != 1 {
			t.Fatal("the second code changed under a reused event id")
		}
		var again protocol.Result
		h.Call(t, "POST", "/v1/redeem", a, h.Ring, first, &again)
		if !again.Duplicate || again.Outcome != "redeemed" {
			t.Fatalf("the same event again: %+v", again)
		}
	})
}

// Defect 6: a desk's token uploaded codes under another desk's letter.
func TestLetterBelongsToStation(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 3) // letter A codes
		a, b := h.Station(t, "Desk 1", "A"), h.Station(t, "Desk 2", "B")
		var out struct{ Error, Code string }
		codes := []map[string]any{{"code": h.Codes[0]}}
		if st := h.Call(t, "POST", "/v1/batches", b, h.Ring, map[string]any{"codes": codes}, &out); st != 400 || !strings.Contains(out.Error, "letter A") {
			t.Fatalf("desk B uploading letter A codes: %d %+v", st, out)
		}
		h.Upload(t, a) // the rightful desk is not blocked
		// A forged code under A's letter (the server cannot verify it) is
		// dropped by every desk that downloads it.
		forged := h.Codes[1][:len(h.Codes[1])-3] + "222"
		if forged == h.Codes[1] {
			forged = h.Codes[1][:len(h.Codes[1])-3] + "333"
		}
		h.Call(t, "POST", "/v1/batches", a, h.Ring, map[string]any{"codes": []map[string]any{{"code": forged}}}, &out)
		d := h.Desk(t, "Desk 2", "B", b)
		d.Sync(t)
		if n := d.Count(t, `SELECT count(*) FROM codes`); n != len(h.Codes) {
			t.Fatalf("desk has %d codes, want the %d genuine ones", n, len(h.Codes))
		}
		if n := d.Count(t, `SELECT count(*) FROM codes WHERE code = ?`, forged); n != 0 {
			t.Fatal("the forged code was stored at the desk")
		}
	})
}
