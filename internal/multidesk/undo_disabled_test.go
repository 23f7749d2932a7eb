package multidesk_test

import (
	"testing"

	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// A label disabled at the server (torn, reported stolen) and redeemed
// offline by a desk that had not heard of it yet: the desk's undo takes
// back the redemption, not the disabling. The label must not come out of
// the undo redeemable.
func TestUndoKeepsDisabled(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 2)
		tok := h.Station(t, "Desk 1", "A")
		other := h.Station(t, "Desk 2", "B")
		h.Upload(t, tok)
		at := h.Now.Unix()
		var out struct{ Results []protocol.Result }
		send := func(token string, ev protocol.Event) protocol.Result {
			t.Helper()
			if st := h.Call(t, "POST", "/v1/events", token, h.Ring, map[string]any{"events": []protocol.Event{ev}}, &out); st != 200 || len(out.Results) != 1 {
				t.Fatalf("%s: %d %+v", ev.EventID, st, out)
			}
			return out.Results[0]
		}
		if r := send(other, protocol.Event{EventID: "disable-event-1", Kind: "disable", Code: h.Codes[0], Operator: "wang", At: at, Reason: "label torn"}); r.Outcome != "disabled" {
			t.Fatalf("disable: %+v", r)
		}
		redeem := protocol.Event{EventID: "redeem-event-1", Kind: "redeem", Code: h.Codes[0], Operator: "li", At: at + 30, Offline: true}
		if r := send(tok, redeem); r.Outcome != "redeemed" {
			t.Fatalf("offline redemption: %+v", r)
		}
		if r := send(tok, protocol.Event{EventID: "undo-event-1", Kind: "undo", Code: h.Codes[0], Operator: "li", At: at + 60, Reason: "wrong parcel", Undoes: redeem.EventID}); r.Outcome != "undone" {
			t.Fatalf("undo: %+v", r)
		}
		var r protocol.Result
		if st := h.Call(t, "POST", "/v1/redeem", other, h.Ring, protocol.Event{EventID: "redeem-event-2", Kind: "redeem", Code: h.Codes[0], Operator: "wang", At: h.Now.Unix()}, &r); st != 200 || r.Outcome != "disabled" {
			t.Fatalf("online redemption of the disabled label after the undo: %d %+v, want disabled", st, r)
		}
	})
}
