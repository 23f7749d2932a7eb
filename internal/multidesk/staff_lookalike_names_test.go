package multidesk_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// The staff list holds the supervisor boss and the picker Jürgen (typed
// composed, as keyboards do). Someone adds "bo\u200bss" (a zero-width
// space inside), "Ju\u0308rgen" (the ü decomposed, as macOS file names
// and some pastes give it), "ＢＯＳＳ" (full-width), a soft hyphen or a
// variation selector at the end. Every list,
// the picker, the audit trail and the dashboard show them as the names
// already there: a "remove Jürgen" typed at a desk would remove one and
// leave the other signing in. Each is refused, at the server (an
// administrator's change, a desk's event) and at the desk, saying which
// current name it reads as, or that it holds an invisible character. A
// name that reads differently is taken, composed.
func TestStaffNamesThatLookTheSame(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h, a, _, _ := centraltest.TwoDesks(t, dbPath, 0)
		changeStaff(t, h, protocol.StaffChange{Action: protocol.StaffAdd, Name: "boss", Supervisor: true}, "135792")
		changeStaff(t, h, protocol.StaffChange{Action: protocol.StaffAdd, Name: "J\u00fcrgen"}, "2468")
		a.Sync(t)
		hash, err := app.HashPIN("8642")
		if err != nil {
			t.Fatal(err)
		}
		var taken []string
		for _, name := range []string{"bo\u200bss", "Ju\u0308rgen", "\uff22\uff2f\uff33\uff33", "J\u00fcrgen\u00ad", "boss\ufe0f", "Ju\u0308rgen\u200d"} {
			_, err := h.DB.ChangeStaff(ctx, protocol.StaffChange{Action: protocol.StaffAdd, Name: name, PINHash: hash}, "manager", h.Now.Unix())
			var like *app.LooksLikeError
			switch {
			case err == nil:
				taken = append(taken, name)
			case errors.As(err, &like):
				if like.Existing != "boss" && like.Existing != "J\u00fcrgen" {
					t.Errorf("server, %q: refused as reading like %q", name, like.Existing)
				}
			case strings.Contains(err.Error(), "invisible character"):
			default:
				t.Errorf("server, %q: refused with %v, want it named as reading like a current name", name, err)
			}
			// At the desk (its copy of the deployment's list): refused
			// before anything goes to the server.
			if _, err := a.Svc.Operators().Add(ctx, name, "8642", false, "boss"); err == nil {
				taken = append(taken, "desk A: "+name)
			} else if !containsAny(err.Error(), "reads the same as", "invisible character", "already an operator called") {
				t.Errorf("desk A, %q: refused with %v, want the name rule", name, err)
			}
		}
		if len(taken) > 0 {
			t.Fatalf("the staff list took %q beside \"boss\" and \"J\u00fcrgen\": names that read the same everywhere", taken)
		}
		// A desk's event with such a name (an older desk's) is refused at
		// the server too, with the reason.
		ch := protocol.StaffChange{Action: protocol.StaffAdd, Name: "ju\u0308rgen", PINHash: hash}
		ev := map[string]any{"event_id": "00000000000000a1", "kind": protocol.KindStaff, "operator": "boss",
			"at": h.Now.Unix(), "offline": true, "reason": ch.Summary(), "staff": ch}
		var res struct {
			Results []protocol.Result `json:"results"`
		}
		h.Call(t, "POST", "/v1/events", "qrd_test_Desk_A", h.Ring, map[string]any{"events": []any{ev}}, &res)
		if len(res.Results) != 1 || res.Results[0].Outcome != protocol.OutcomeRejected || !containsAny(res.Results[0].Reason, "reads the same as") {
			t.Errorf("a desk's event adding %q: %+v, want rejected as reading like Jürgen", ch.Name, res.Results)
		}
		// A name that reads differently is taken at the desk, composed.
		op, err := a.Svc.Operators().Add(ctx, "Ju\u0308rgen K", "8642", false, "boss")
		if err != nil {
			t.Fatalf("desk A refused Jürgen K: %v", err)
		}
		if op.Name != "J\u00fcrgen K" {
			t.Errorf("desk A stored %q, want it composed", op.Name)
		}
		a.Sync(t)
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM staff WHERE name = ? AND removed_at = 0`, "J\u00fcrgen K"); n != 1 {
			t.Errorf("the server holds %d current Jürgen K (composed), want 1", n)
		}
	})
}

// containsAny reports whether s holds one of subs.
func containsAny(s string, subs ...string) bool {
	return slices.ContainsFunc(subs, func(sub string) bool { return strings.Contains(s, sub) })
}
