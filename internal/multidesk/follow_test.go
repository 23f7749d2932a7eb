package multidesk_test

import (
	"context"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// TestFollowLearnsAtOnce: while online, a desk that follows the feed
// (long poll) learns of another desk's redemption without a sync, so the
// label is already "used" there if the network fails right after.
func TestFollowLearnsAtOnce(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		_, a, b, codes := centraltest.TwoDesks(t, dbPath, 3)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		followed := make(chan struct{})
		go func() { b.Svc.Follow(ctx); close(followed) }()
		time.Sleep(200 * time.Millisecond) // b is waiting on the feed
		start := time.Now()
		if v := a.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A: %+v", v)
		}
		for b.Count(t, `SELECT count(*) FROM codes WHERE code = ? AND status = 'used'`, codes[0]) == 0 {
			if time.Since(start) > 10*time.Second {
				t.Fatal("desk B never learned of the redemption")
			}
			time.Sleep(5 * time.Millisecond)
		}
		t.Logf("desk B knew after %v", time.Since(start).Round(time.Millisecond))
		cancel()
		<-followed
		b.Svc.Remote = nil // the network fails: desk B still refuses the label
		if v := b.Redeem(t, codes[0], "wang"); v.Outcome != app.OutcomeAlreadyUsed {
			t.Fatalf("desk B offline: %+v", v)
		}
	})
}
