package multidesk_test

import (
	"context"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// TestRemovedSupervisorOfflineCloseExpires: expiring the day's
// unused labels needs a supervisor at the desk, as Disable and Replace do
// (ui/closeday). Offline, a disable or replace by a supervisor the
// server's list had removed is refused and flagged
// (TestRemovedSupervisorOfflineDisableEnableReplaceRefused). The same
// removed supervisor's close with --expire-unused, made at desk B offline
// after the removal, expired every unused label of the site at the
// server, unflagged; each expiry is now refused and flagged the same way.
func TestRemovedSupervisorOfflineCloseExpires(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 3)
		changeStaff(t, h, protocol.StaffChange{Action: protocol.StaffAdd, Name: "wang", Supervisor: true}, "1357")
		a.Sync(t)
		b.Sync(t)
		b.Offline(func() {
			h.Now = h.Now.Add(time.Minute)
			changeStaff(t, h, protocol.StaffChange{Action: protocol.StaffRemove, Name: "wang"}, "")
			h.Now = h.Now.Add(10 * time.Minute)
			if _, err := b.Svc.CloseDay(ctx, app.CloseDayRequest{ExpireUnused: true, Operator: "wang"}); err != nil {
				t.Fatalf("desk B offline: wang's close: %v", err)
			}
		})
		b.Sync(t)
		a.Sync(t)
		expired := centraltest.Count(t, h.DB, `SELECT count(*) FROM codes WHERE status = 'expired'`)
		flagged, listed := removedStaffExpiries(t, h.DB)
		if expired > 0 || flagged != len(codes) || listed != len(codes) {
			t.Errorf("supervisor wang, removed at the server, closed the day with --expire-unused at desk B offline: the server expired %d of %d labels (%s at desk A: %s), flagged %d expiries, %d in the removed staff's work; want none expired, each refused and flagged as a disable by wang is",
				expired, len(codes), codes[0], a.Status(t, codes[0]), flagged, listed)
		}
		b.Sync(t)
		for _, code := range codes {
			if got := b.Status(t, code); got != "unused" {
				t.Errorf("desk B's copy of %s after the refused expiry: %s, want unused (as the server has it)", code, got)
			}
		}
	})
}

// TestLateRemovalRemovesTheRehired: desk B's manager removes kim
// (a lost badge) while B is offline. At the server kim is removed too and,
// a minute later, added again with a new PIN. B's removal, made before the
// new record existed, arrives afterwards: the server removed the kim it
// had just added, and kim could work at no desk. It is refused now, as a
// removal of the earlier record, and desk B learns the new kim.
func TestLateRemovalRemovesTheRehired(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 1)
		for _, d := range []*centraltest.Desk{a, b} {
			d.DB.UseClock(func() time.Time { return h.Now })
		}
		changeStaff(t, h, protocol.StaffChange{Action: protocol.StaffAdd, Name: "kim"}, "1357")
		a.Sync(t)
		b.Sync(t)
		b.Offline(func() {
			h.Now = h.Now.Add(time.Minute)
			if _, err := b.Svc.Operators().Remove(ctx, "kim", "admin"); err != nil {
				t.Fatal(err)
			}
			h.Now = h.Now.Add(time.Minute)
			changeStaff(t, h, protocol.StaffChange{Action: protocol.StaffRemove, Name: "kim"}, "")
			h.Now = h.Now.Add(time.Minute)
			changeStaff(t, h, protocol.StaffChange{Action: protocol.StaffAdd, Name: "kim"}, "2468")
		})
		h.Now = h.Now.Add(time.Minute)
		a.Sync(t) // A hears of the new kim
		h.Now = h.Now.Add(time.Minute)
		if v := a.Redeem(t, codes[0], "kim"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("the new kim redeems online at desk A: %+v", v)
		}
		h.Now = h.Now.Add(time.Minute)
		b.Sync(t)
		a.Sync(t)
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM events WHERE kind = 'redeem' AND code = ? AND (flags & 64) <> 0`, codes[0]); n != 0 {
			t.Errorf("the new kim's online redemption at desk A, made while kim was on the list, is flagged as a removed operator's work after desk B's late removal")
		}
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM staff WHERE name = 'kim' AND removed_at = 0`); n != 1 {
			t.Errorf("kim, added again at the server after desk B's offline removal, is removed when that removal arrives (current kim records: %d)", n)
		}
		if _, err := b.Svc.Operators().Find(ctx, "kim"); err != nil {
			t.Errorf("desk B, synced after its late removal was refused, does not know the new kim: %v", err)
		}
	})
}
