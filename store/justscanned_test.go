package store

import (
	"context"
	"testing"
	"time"

	"qrdesk/app"
)

// TestJustScannedCountedApart: the window's scan right after its own
// redemption of the same label is logged as just_scanned and counted
// neither as redeemed nor as refused, by the day's figures and the close
// alike; the same scan from the command line (no InARow), or seconds
// later, is already used.
func TestJustScannedCountedApart(t *testing.T) {
	ctx := context.Background()
	svc, _, clock := mustOpen(t)
	_, codes := mustIssue(t, svc, app.IssueRequest{Count: 1})
	code := codes[0].String()
	scan := func(inARow bool, want app.Outcome) {
		t.Helper()
		v, err := svc.RedeemScan(ctx, code, "li", inARow)
		if err != nil {
			t.Fatal(err)
		}
		if v.Outcome != want {
			t.Fatalf("outcome %s, want %s", v.Outcome, want)
		}
	}
	scan(false, app.OutcomeRedeemed)
	clock.Advance(time.Second)
	scan(true, app.OutcomeJustScanned)
	scan(false, app.OutcomeAlreadyUsed) // the command line, or another scan at once
	clock.Advance(2 * time.Second)
	scan(true, app.OutcomeAlreadyUsed)

	st, err := svc.Stats(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if st.Scans != 4 || st.Redeemed != 1 || st.JustScanned != 1 || st.Refused[app.OutcomeAlreadyUsed] != 2 || st.Refused[app.OutcomeJustScanned] != 0 {
		t.Fatalf("stats %+v: want 4 scans, 1 redeemed, 1 just scanned, 2 already used", st)
	}
	f, err := svc.DayFigures(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]int{}
	for _, r := range f.Rows() {
		rows[r.Key] = r.Value
	}
	if rows["just_scanned"] != 1 || rows["refused"] != 2 || rows["refused:already_used"] != 2 {
		t.Fatalf("the day's figures %v: want just_scanned 1, refused 2 (already used)", rows)
	}
}
