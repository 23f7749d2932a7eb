package ui

import (
	"context"
	"sort"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"qrdesk/app"
)

// BenchmarkScanLatency1M measures keystroke-to-result on the Scan screen
// with 1,000,000 codes in the database (target ≤ 50 ms): the time from the
// scanner's Enter to the result panel being painted.
func BenchmarkScanLatency1M(b *testing.B) {
	h := newHarness(b)
	if _, err := h.svc.UpdateSettings(context.Background(), map[string]string{"serial_digits": "7"}, "bench"); err != nil {
		b.Fatal(err)
	}
	var codes []string
	for i := 0; i < 10; i++ {
		codes = append(codes, h.issue(b, 100_000)...)
	}
	const perOp = 200
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := 0; j < perOp; j++ {
			code := codes[(i*perOp+j)*4999%len(codes)]
			gen := 0
			fyne.DoAndWait(func() { gen = h.ui.scan.shownGen; test.Type(h.ui.scan.entry, code) })
			start := time.Now()
			fyne.DoAndWait(func() { h.ui.scan.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn}) })
			for done := false; !done; {
				fyne.DoAndWait(func() {
					h.ui.scan.mu.Lock()
					done = h.ui.scan.shownGen != gen
					h.ui.scan.mu.Unlock()
				})
			}
			lat = append(lat, time.Since(start))
			if h.ui.scan.title.Text != outcomeTitle(app.OutcomeRedeemed) && h.ui.scan.title.Text != outcomeTitle(app.OutcomeAlreadyUsed) {
				b.Fatalf("scan showed %q", h.ui.scan.title.Text)
			}
		}
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50_ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99_ms")
}
