package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"qrdesk/app"
)

// TestJustScannedIsNotARefusal: a label scanned twice in a row is JUST
// SCANNED in the recent list too (not ALREADY USED), and the counters, the
// day's figures and the Today screen count it apart, not as a refusal. A
// third scan seconds later is ALREADY USED and refused.
func TestJustScannedIsNotARefusal(t *testing.T) {
	h := newHarness(t)
	code := h.issue(t, 1)[0]
	h.scan(t, code, fyne.KeyReturn, "REDEEMED")
	h.scan(t, code, fyne.KeyReturn, "JUST SCANNED")

	row := newRecentRow()
	fyne.DoAndWait(func() { showRecentRow(row, h.ui.scan.recent[0]) })
	if head := row.(*fyne.Container).Objects[0].(*widget.Label).Text; !strings.HasSuffix(head, "JUST SCANNED") {
		t.Errorf("the recent list says %q, want JUST SCANNED", head)
	}
	waitFor(t, "the counters", func() bool { return strings.Contains(h.ui.scan.counters.Text, "1 redeemed, 0 refused") })
	st, err := h.svc.Stats(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if st.JustScanned != 1 || st.Refused[app.OutcomeAlreadyUsed] != 0 || st.Scans != 2 {
		t.Errorf("figures: %d scanned twice, %d already used of %d scans; want 1, 0 of 2", st.JustScanned, st.Refused[app.OutcomeAlreadyUsed], st.Scans)
	}
	// The counters read back from the database agree (a restarted window).
	fyne.DoAndWait(func() { h.ui.scan.loadCounters() })
	h.settle()
	waitFor(t, "the counters", func() bool { return strings.Contains(h.ui.scan.counters.Text, "1 redeemed, 0 refused") })
	fyne.DoAndWait(func() { h.ui.show("today") })
	h.settle()
	waitFor(t, "Today's cards", func() bool {
		return h.ui.today.cards["Scanned twice"].value.Text == "1" && h.ui.today.cards["Refused"].value.Text == "0"
	})

	h.clock.Advance(3 * time.Second)
	fyne.DoAndWait(func() { h.ui.show("scan") })
	h.scan(t, code, fyne.KeyReturn, "ALREADY USED")
	waitFor(t, "the counters", func() bool { return strings.Contains(h.ui.scan.counters.Text, "1 redeemed, 1 refused") })

	override = chineseTexts(t)
	defer func() { override = nil }()
	if got := outcomeTitle(app.OutcomeJustScanned); got != "刚刚已扫" {
		t.Errorf("in Chinese JUST SCANNED is %q", got)
	}
}
