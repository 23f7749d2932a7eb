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
