package multidesk_test

import (
	"testing"
	"time"

	"qrdesk/central"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/serverdbtest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// Desk B, offline, hands a parcel over past its label's expiry and takes
// it back (its undo follows in the same upload); desk A used the label
// since and uploaded first. B's redemption is handed back (no conflict),
// but the parcel did go out past the expiry: the server flags it, as it
// flags any offline redemption after expiry.
func TestHandedBackRedemptionAfterExpiryIsFlagged(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 1)
		a := h.Station(t, "Desk A", "A")
		b := h.Station(t, "Desk B", "B")
		expiry := h.Now.Add(-20 * time.Minute).Unix()
		var res struct{ Added int }
		h.Call(t, "POST", "/v1/batches", a, h.Ring, map[string]any{"codes": []map[string]any{
			{"code": h.Codes[0], "expire_at": expiry, "created_at": expiry - 3600}}}, &res)
		at := expiry + 5*60
		send := func(tok string, evs ...protocol.Event) []protocol.Result {
			t.Helper()
			var out struct{ Results []protocol.Result }
			if st := h.Call(t, "POST", "/v1/events", tok, h.Ring, map[string]any{"events": evs}, &out); st != 200 || len(out.Results) != len(evs) {
				t.Fatalf("events: status %d %+v", st, out)
			}
			return out.Results
		}
		send(a, protocol.Event{EventID: "a-later-1", Kind: protocol.KindRedeem, Code: h.Codes[0], Operator: "li", At: at + 60, Offline: true})
		got := send(b,
			protocol.Event{EventID: "b-handed-1", Kind: protocol.KindRedeem, Code: h.Codes[0], Operator: "wang", At: at, Offline: true},
			protocol.Event{EventID: "b-undo-1", Kind: protocol.KindUndo, Code: h.Codes[0], Undoes: "b-handed-1", Operator: "wang", At: at + 10, Offline: true, Reason: "wrong parcel"})
		if got[0].Outcome != protocol.OutcomeRedeemed || got[1].Outcome != protocol.OutcomeUndone {
			t.Fatalf("desk B's upload: %+v, want redeemed (handed back) and undone", got)
		}
		ev := h.Server(t).Event(serverdbtest.Where{EventID: "b-handed-1"})
		if !ev.Flags.Has(central.FlagAfterExpiry) {
			t.Errorf("the handed-back redemption after expiry: flags %b, want after expiry (%b)", ev.Flags, central.FlagAfterExpiry)
		}
		if n := h.Server(t).CountConflicts(); n != 0 {
			t.Errorf("%d conflicts: the parcel was handed back before desk A's use", n)
		}
	})
}
