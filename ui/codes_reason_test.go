package ui

import (
	"context"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// TestCodesReasonFieldFitsTheLabel: the reason field says what it is for
// with the picked label (disable, undo, enable), in English and Chinese;
// Enter on a used label asks to undo; "give a reason" goes once a reason
// is typed or another label is picked.
func TestCodesReasonFieldFitsTheLabel(t *testing.T) {
	h := newHarness(t)
	kb := keyboard{h.win}
	codes := h.issue(t, 2)
	h.svc.Redeem(context.Background(), codes[1], "li")

	s := codesDetail(t, h, codes[0])
	if !strings.Contains(s.reason.PlaceHolder, "disable") {
		t.Errorf("an unused label's reason says %q", s.reason.PlaceHolder)
	}
	fyne.DoAndWait(func() { test.Tap(s.disableBtn) })
	if !strings.Contains(s.message.Text, "reason") {
		t.Fatalf("disable without a reason: %q", s.message.Text)
	}
	fyne.DoAndWait(func() { s.reason.SetText("torn") })
	if s.message.Text != "" {
		t.Errorf("the reason is typed, and the message still says %q", s.message.Text)
	}
	fyne.DoAndWait(func() { s.reason.SetText(""); test.Tap(s.disableBtn) })
	s = codesDetail(t, h, codes[1])
	if s.message.Text != "" {
		t.Errorf("another label is picked, and the message still says %q", s.message.Text)
	}
	if !strings.Contains(s.reason.PlaceHolder, "undo") {
		t.Errorf("a used label's reason says %q", s.reason.PlaceHolder)
	}
	fyne.DoAndWait(func() { h.win.Canvas().Focus(s.reason) })
	kb.typeText("wrong parcel")
	kb.press(fyne.KeyReturn)
	if h.win.Canvas().Overlays().Top() == nil {
		t.Fatal("Enter in the reason of a used label did not ask to undo")
	}
	kb.press(fyne.KeyEscape)

	override = chineseTexts(t)
	defer func() { override = nil }()
	if got := reasonHint("used"); got != "撤销核销的原因（至少 3 个字符）" {
		t.Errorf("in Chinese a used label's reason says %q", got)
	}
}
