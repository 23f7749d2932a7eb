package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
)

// TestAlreadyUsedIsNotJustScanned: a label redeemed a moment ago and read
// again (JUST SCANNED: the parcel went, nothing is wrong) and a label used
// before (ALREADY USED: stop) were painted the same amber, and ALREADY
// USED said only when it was first used. Now each has its own colour and
// ALREADY USED says "do not hand over", in English and Chinese.
func TestAlreadyUsedIsNotJustScanned(t *testing.T) {
	h := newHarness(t)
	codes := h.issue(t, 2)
	for i, lang := range []string{"en", "zh"} {
		want := "do not hand over"
		if lang == "zh" {
			override = chineseTexts(t)
			want = "请勿交付"
		}
		t.Cleanup(func() { override = nil })
		h.scan(t, codes[i], fyne.KeyReturn, T("REDEEMED"))
		h.scan(t, codes[i], fyne.KeyReturn, T("JUST SCANNED"))
		var just, used any
		fyne.DoAndWait(func() { just = h.ui.scan.panel.FillColor })
		h.clock.Advance(time.Minute)
		h.scan(t, codes[i], fyne.KeyReturn, T("ALREADY USED"))
		var detail string
		fyne.DoAndWait(func() { used, detail = h.ui.scan.panel.FillColor, h.ui.scan.detail.Text })
		if colorKey(just) == colorKey(used) {
			t.Errorf("%s: JUST SCANNED and ALREADY USED are both painted %v", lang, used)
		}
		if !strings.Contains(strings.ToLower(detail), want) {
			t.Errorf("%s: ALREADY USED says %q, want %q", lang, detail, want)
		}
		if v, _ := h.svc.Check(context.Background(), codes[i]); v.Outcome != "already_used" {
			t.Errorf("%s: the label is %s after the scans", lang, v.Outcome)
		}
	}
}

// TestAlreadyUsedKeepsNamesWhole: ALREADY USED's "first used … at Desk 1
// by Zoë Lämmer" breaks its lines between words, never inside the desk's
// name, the time or the operator's ("Desk" at the end of a line, "1" on
// the next), however narrow its panel.
func TestAlreadyUsedKeepsNamesWhole(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	h.svc.UpdateSettings(ctx, map[string]string{"station_name": "Desk 1"}, "test")
	codes := h.issue(t, 1)
	h.svc.Redeem(ctx, codes[0], "Zoë Lämmer")
	h.clock.Advance(time.Hour)
	h.scan(t, codes[0], fyne.KeyReturn, "ALREADY USED")
	d := h.ui.scan.detail
	broken := func(l string) bool {
		l = strings.TrimSpace(l)
		return strings.HasSuffix(l, "Desk") || strings.HasPrefix(l, "1 by") || strings.HasSuffix(l, "Zoë") || strings.HasPrefix(l, "Lämmer") ||
			strings.HasSuffix(l, testclockDay(h))
	}
	// From the width of its widest name (narrower, a name is cut as any
	// word wider than the line) to the whole line.
	var width, widest float32
	fyne.DoAndWait(func() {
		width = fyne.MeasureText(d.Text, d.TextSize, d.TextStyle).Width
		for _, word := range strings.FieldsFunc(d.Text, breaksLine) {
			widest = max(widest, fyne.MeasureText(word, d.TextSize, d.TextStyle).Width)
		}
	})
	for w := widest + 1; w < width; w += 4 {
		var lines []string
		fyne.DoAndWait(func() { lines = d.lines(w) })
		for _, l := range lines {
			if broken(l) {
				t.Fatalf("at %.0f px ALREADY USED breaks a name or the time: %q", w, lines)
			}
		}
	}
}

// testclockDay is the date part of the time the harness's clock shows.
func testclockDay(h *harness) string { return h.clock.Now().Format("2006-01-02") }
