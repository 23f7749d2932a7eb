package ui

import (
	"context"
	"strings"
	"testing"

	"fyne.io/fyne/v2"

	"qrdesk/app"
	"qrdesk/internal/testclock"
)

// TestTodayCountsTheSameLabels: Today's Issued counted the labels made
// today whatever their label date, Still unused the labels of today's
// date, so labels made today for yesterday showed 7 issued, 1 redeemed and
// 3 unused. The cards now count the labels for today (issued and still
// unused), and a line under them says how many were made today for any day.
func TestTodayCountsTheSameLabels(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	if _, _, err := h.svc.Issue(ctx, app.IssueRequest{Count: 3, Date: testclock.Date(-1)}); err != nil {
		t.Fatal(err)
	}
	codes := h.issue(t, 4)
	h.svc.Redeem(ctx, codes[0], "li")
	s := h.ui.today
	fyne.DoAndWait(func() { h.ui.show("today") })
	h.settle()
	for name, want := range map[string]string{"Labels for today": "4", "Redeemed": "1", "Still unused": "3"} {
		c, ok := s.cards[name]
		if !ok {
			t.Fatalf("Today has no %q card", name)
		}
		if got := c.value.Text; got != want {
			t.Errorf("card %s shows %s, want %s", name, got, want)
		}
	}
	if got := s.madeToday.Text; !strings.Contains(got, "7") {
		t.Errorf("the line under the cards says %q, want the 7 labels made today", got)
	}
}
