package multidesk_test

import (
	"context"
	"testing"
	"time"

	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// TestRehiredOperatorReachesADeskThatStartsOver: kim is on the staff list
// and desk B holds kim. B falls silent; at the server kim is removed and,
// a minute later, added again (a new member, a new PIN). The feed is
// compacted past B's position, so B starts over from a snapshot, which
// lists the current members before the removed ones: the new kim comes
// first, while B still holds the earlier kim as current (one current
// operator per name), and the earlier kim's removal after it. B must end
// with the new kim current, as the server has it. The property test's
// rehire family found it (the desks that started over after a server
// restore lost the clerk added again).
func TestRehiredOperatorReachesADeskThatStartsOver(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h, a, b, _ := centraltest.TwoDesks(t, dbPath, 1)
		changeStaff(t, h, protocol.StaffChange{Action: protocol.StaffAdd, Name: "kim"}, "1357")
		a.Sync(t)
		b.Sync(t)
		h.Now = h.Now.AddDate(0, 0, 8) // desk B last read the feed eight days before
		changeStaff(t, h, protocol.StaffChange{Action: protocol.StaffRemove, Name: "kim"}, "")
		h.Now = h.Now.Add(time.Minute)
		added := changeStaff(t, h, protocol.StaffChange{Action: protocol.StaffAdd, Name: "kim"}, "2468")
		a.Sync(t)
		a.Sync(t) // a desk confirms what it read with its next request
		if h.Compact(t, h.Now.Add(-7*24*time.Hour).Unix()) == 0 {
			t.Fatal("the compaction dropped nothing: desk B would not start over")
		}
		b.Sync(t)
		for name, d := range map[string]*centraltest.Desk{"A": a, "B": b} {
			op, err := d.Svc.Operators().Find(ctx, "kim")
			switch {
			case err != nil:
				t.Errorf("desk %s: kim, removed and added again at the server, is not a current operator: %v", name, err)
			case op.StaffID != added.ID:
				t.Errorf("desk %s: the current kim is staff member %d, want the one added again (%d)", name, op.StaffID, added.ID)
			}
		}
	})
}
