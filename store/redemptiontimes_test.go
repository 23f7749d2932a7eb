package store

import (
	"context"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/internal/testclock"
)

func TestRedeemedByHour(t *testing.T) {
	svc, _, clock := mustOpen(t)
	ctx := context.Background()
	_, codes := mustIssue(t, svc, app.IssueRequest{Count: 5})
	day := testclock.Day()
	for i, at := range []time.Duration{9*time.Hour + 59*time.Minute, 10 * time.Hour, 10*time.Hour + 59*time.Minute, 23*time.Hour + 59*time.Minute} {
		clock.Set(day.Add(at))
		if v, err := svc.Redeem(ctx, codes[i].String(), "li"); err != nil || v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("redeem: %v %v", v.Outcome, err)
		}
	}
	clock.Set(day.AddDate(0, 0, 1).Add(time.Minute)) // tomorrow: not today's
	svc.Redeem(ctx, codes[4].String(), "li")

	hours, err := svc.RedeemedByHour(ctx, testclock.Date(0))
	if err != nil {
		t.Fatal(err)
	}
	if len(hours) != 24 {
		t.Fatalf("%d hours, want 24", len(hours))
	}
	got := map[int]int{}
	total := 0
	for _, h := range hours {
		if h.Redeemed > 0 {
			got[h.Start.Hour()] = h.Redeemed
		}
		total += h.Redeemed
	}
	if got[9] != 1 || got[10] != 2 || got[23] != 1 || total != 4 {
		t.Fatalf("redeemed by hour %v, want 9:1 10:2 23:1", got)
	}
	st, _ := svc.Stats(ctx, testclock.Date(0))
	if st.Redeemed != total {
		t.Fatalf("hours add up to %d, stats say %d", total, st.Redeemed)
	}
}
