package store

import (
	"context"
	"testing"
	"time"

	"qrdesk/app"
)

// TestReportTellsTheOldestWaitingEvent: the desk's report to the server
// says how long the oldest event of its outbox has waited (the server's
// metrics show the oldest per site), only while one waits.
func TestReportTellsTheOldestWaitingEvent(t *testing.T) {
	ctx := context.Background()
	svc, db, clock := mustOpen(t)
	_, codes := mustIssue(t, svc, app.IssueRequest{Count: 2})
	st, err := db.SyncState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r, err := svc.DeskReport(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if r.OldestWaitingSeconds != 0 {
		t.Errorf("nothing redeemed yet: oldest waiting %d s, want 0 (left out)", r.OldestWaitingSeconds)
	}
	first := clock.Now()
	if v, err := svc.Redeem(ctx, codes[0].String(), "li"); err != nil || v.Outcome != app.OutcomeRedeemed {
		t.Fatalf("redeem: %+v %v", v, err)
	}
	clock.Advance(10 * time.Minute)
	if v, err := svc.Redeem(ctx, codes[1].String(), "li"); err != nil || v.Outcome != app.OutcomeRedeemed {
		t.Fatalf("redeem: %+v %v", v, err)
	}
	clock.Advance(5 * time.Minute)
	st, err = db.SyncState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Waiting == 0 || st.OldestWaitingAt != first.Unix() {
		t.Fatalf("sync state: %d waiting, the oldest at %d; want the first redemption's %d", st.Waiting, st.OldestWaitingAt, first.Unix())
	}
	r, err = svc.DeskReport(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if r.OldestWaitingSeconds != 15*60 {
		t.Errorf("report: oldest waiting %d s, want %d (the first redemption, 15 minutes ago)", r.OldestWaitingSeconds, 15*60)
	}
}
