package multidesk_test

import (
	"testing"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// Hostile review: forged replace events. A desk's token sends a replace
// whose new_code is a label that already exists at the server and was
// handed over for another parcel. A real desk never does that (its new
// label is fresh); the server must not link two parcels into one
// entitlement, nor disable X "replaced by" a label that is already used.
func TestReplaceNamingUsedCodeAsNew(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 2)
		x, w := codes[0], codes[1]
		if v := a.Redeem(t, w, "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A, W: %+v", v)
		}
		var res struct{ Results []protocol.Result }
		ev := protocol.Event{EventID: "forged-replace-1", Kind: protocol.KindReplace, Code: x, Operator: "li", At: h.Now.Unix(), Reason: "torn",
			NewCode: w, NewCreatedAt: h.Now.Unix()}
		h.Call(t, "POST", "/v1/events", "qrd_test_Desk_A", h.Ring, map[string]any{"events": []protocol.Event{ev}}, &res)
		t.Logf("server answered %+v", res.Results)
		if len(res.Results) == 1 && res.Results[0].Outcome == protocol.OutcomeReplaced {
			t.Errorf("replace of %s by the used label %s: answered replaced", x, w)
		}
		if n := h.Server(t).CountLabel(x, "unused"); n != 1 {
			t.Errorf("the server disabled %s: its replacement is a label already handed over", x)
		}
		// Desk B, offline, hands over X for its own parcel: not a double use.
		b.Offline(func() {
			if v := b.Redeem(t, x, "wang"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("desk B offline, X: %+v", v)
			}
		})
		b.Sync(t)
		if n := h.Server(t).CountConflicts(); n != 0 {
			t.Errorf("%d conflicts: two different parcels made one by a forged replace", n)
		}
	})
}

// A replace event that closes a cycle (Y replaced "by" X, after X was
// replaced by Y): the server answers replaced and disables Y, leaving X
// disabled "replaced by Y" and Y disabled "replaced by X": the parcel has
// no valid label left, and nothing says so.
func TestReplaceCycle(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, _, codes := centraltest.TwoDesks(t, dbPath, 1)
		x := codes[0]
		y := a.Replace(t, x, "li")
		a.Sync(t)
		var res struct{ Results []protocol.Result }
		ev := protocol.Event{EventID: "forged-cycle-1", Kind: protocol.KindReplace, Code: y, Operator: "li", At: h.Now.Unix(), Reason: "torn",
			NewCode: x, NewCreatedAt: h.Now.Unix()}
		h.Call(t, "POST", "/v1/events", "qrd_test_Desk_A", h.Ring, map[string]any{"events": []protocol.Event{ev}}, &res)
		t.Logf("server answered %+v", res.Results)
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM codes WHERE code IN (?, ?) AND status = 'unused'`, x, y); n != 1 {
			t.Errorf("after a replace of Y by X, %d of X and Y are valid at the server, want 1", n)
		}
	})
}
