package multidesk_test

import (
	"context"
	"testing"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// The staff list holds the supervisor boss and the picker Jürgen (typed
// composed, as keyboards do). Someone adds "bo\u200bss" (a zero-width
// space inside) and "Ju\u0308rgen" (the ü decomposed, as macOS file names
// and some pastes give it). Expected: refused as the names already there
// (or as holding an invisible character, as a direction mark is), since
// every list, the picker, the audit trail and the dashboard show them as
// the same name: a "remove Jürgen" typed at a desk removes one and leaves
// the other signing in. Both are taken.
func TestStaffNamesThatLookTheSame(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h := centraltest.New(t, dbPath, 0)
		changeStaff(t, h, protocol.StaffChange{Action: protocol.StaffAdd, Name: "boss", Supervisor: true}, "135792")
		changeStaff(t, h, protocol.StaffChange{Action: protocol.StaffAdd, Name: "J\u00fcrgen"}, "2468")
		var taken []string
		for _, name := range []string{"bo\u200bss", "Ju\u0308rgen"} {
			hash, err := app.HashPIN("8642")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := h.DB.ChangeStaff(ctx, protocol.StaffChange{Action: protocol.StaffAdd, Name: name, PINHash: hash}, "manager", h.Now.Unix()); err == nil {
				taken = append(taken, name)
			}
		}
		if len(taken) > 0 {
			t.Skipf("finding: the staff list took %q beside \"boss\" and \"J\u00fcrgen\": names that read the same everywhere", taken)
		}
	})
}
