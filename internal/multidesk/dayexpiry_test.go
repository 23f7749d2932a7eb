package multidesk_test

import (
	"context"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/central"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// The day's expiry travels: close-day --expire-unused at one desk is an
// expire event per label, the server expires each label that is still
// unused there, and every desk follows through the feed. (Issue 17, item 4.)

// The scenario: desk A closes the day expiring its unused labels
// and syncs; desk B then redeems one online: refused as expired, not green.
// A label B redeemed offline after the close is flagged at the server, and
// every desk ends with the server's status.
func TestDayExpiryReachesServerAndDesks(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 3)
		if dc := a.CloseDay(t, true); dc.ExpiredNow != 3 {
			t.Fatalf("close-day expired %d labels, want 3", dc.ExpiredNow)
		}
		a.Sync(t)
		h.Now = h.Now.Add(time.Minute)
		// Desk B has not synced since: it asks the server.
		if v := b.Redeem(t, codes[0], "wang"); v.Outcome != app.OutcomeExpired {
			t.Fatalf("desk B online after desk A's close: %+v, want refused as expired", v)
		}
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM codes WHERE status = 'expired'`); n != 3 {
			t.Fatalf("the server has %d labels expired, want 3", n)
		}
		// Offline, desk B does not know yet: the parcel goes out, and the
		// server keeps the fact, flagged.
		remote := b.Svc.Remote
		b.Svc.Remote = nil
		if v := b.Redeem(t, codes[1], "wang"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk B offline: %+v", v)
		}
		b.Svc.Remote = remote
		b.Sync(t)
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM events WHERE code = ? AND kind = 'redeem' AND outcome = 'redeemed' AND flags = ?`, codes[1], central.FlagAfterClose); n != 1 {
			t.Fatal("the offline redemption of a label expired by the close is not flagged at the server")
		}
		if got := b.Status(t, codes[2]); got != app.StatusExpired {
			t.Fatalf("desk B after the feed: %s, want expired", got)
		}
		a.Sync(t)
		if got := a.Status(t, codes[1]); got != app.StatusUsed {
			t.Fatalf("desk A after the feed: %s, want used (the server's status)", got)
		}
		for _, d := range []*centraltest.Desk{a, b} {
			if st, _ := d.DB.SyncState(context.Background()); st.Waiting != 0 || st.Rejected != 0 {
				t.Fatalf("outbox %+v, want everything sent and nothing rejected", st)
			}
		}
	})
}

// Desk B used labels before desk A's close reached the server: one online
// (the server had it; A had not heard), one offline before the close and
// uploaded after it. Both stay used at the server, unflagged, A's copy
// follows the server, and only the unused label expires everywhere.
func TestDayExpiryKeepsLabelUsedElsewhere(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 3)
		if v := b.Redeem(t, codes[0], "wang"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk B online: %+v", v)
		}
		remote := b.Svc.Remote
		b.Svc.Remote = nil
		if v := b.Redeem(t, codes[1], "wang"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk B offline: %+v", v)
		}
		b.Svc.Remote = remote
		h.Now = h.Now.Add(time.Minute)
		if dc := a.CloseDay(t, true); dc.ExpiredNow != 3 {
			t.Fatalf("close-day at desk A (not synced) expired %d labels, want 3", dc.ExpiredNow)
		}
		a.Sync(t)
		b.Sync(t)
		a.Sync(t)
		want := map[string]string{codes[0]: "used", codes[1]: "used", codes[2]: "expired"}
		for code, st := range want {
			if n := h.Server(t).CountLabel(code, st); n != 1 {
				t.Errorf("server: %s is not %s", code, st)
			}
			for name, d := range map[string]*centraltest.Desk{"A": a, "B": b} {
				if got := d.Status(t, code); string(got) != st {
					t.Errorf("desk %s: %s is %s, want %s as at the server", name, code, got, st)
				}
			}
		}
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM codes WHERE code IN (?, ?) AND used_station = 'Desk B'`, codes[0], codes[1]); n != 2 {
			t.Error("the server's redemptions of record changed")
		}
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM events WHERE flags <> 0`); n != 0 {
			t.Error("a redemption made before the close is flagged")
		}
		if n := h.Server(t).CountConflicts(); n != 0 {
			t.Errorf("%d conflicts, want none", n)
		}
		if st, _ := a.DB.SyncState(context.Background()); st.Waiting != 0 || st.Rejected != 0 {
			t.Fatalf("desk A's outbox %+v, want everything sent and nothing rejected", st)
		}
	})
}
