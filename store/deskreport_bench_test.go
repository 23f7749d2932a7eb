package store

import (
	"context"
	"fmt"
	"testing"
	"time"

	"qrdesk/app"
)

// BenchmarkDeskReport counts the desk's report at the end of a sync (the
// window syncs every 5 s and reuses the count for a minute): the close of
// the day's figures on a busy day of 100,000 labels issued and printed,
// 20,000 of them redeemed.
func BenchmarkDeskReport(b *testing.B) {
	svc, _, clock := mustOpen(b)
	ctx := context.Background()
	svc.UpdateSettings(ctx, map[string]string{"serial_digits": "6", "station_id": "A", "station_name": "Desk 1"}, "bench")
	batch, codes := mustIssue(b, svc, app.IssueRequest{Count: 100_000})
	recs, err := svc.BatchCodes(ctx, batch.ID)
	if err != nil {
		b.Fatal(err)
	}
	noPrinter := func([]app.CodeRecord) (func() error, error) { return func() error { return nil }, nil }
	if _, err := svc.Print(ctx, recs, app.PrintJob{Operator: "li"}, nil, noPrinter); err != nil {
		b.Fatal(err)
	}
	for i, c := range codes[:20_000] {
		if v, err := svc.Redeem(ctx, c.String(), fmt.Sprintf("op%d", i%4)); err != nil || v.Outcome != app.OutcomeRedeemed {
			b.Fatalf("%+v %v", v, err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		clock.Advance(time.Minute + time.Second) // past the reuse of the last count (app.printedFor)
		r, err := svc.DeskReport(ctx, app.SyncStatus{})
		if err != nil || r.LabelsPrinted != 100_000 || r.PrintJobs != 1 {
			b.Fatalf("%+v %v", r, err)
		}
	}
}
