package ui

import (
	"context"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"qrdesk/app"
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
	if !strings.Contains(s.reasonHelp.Text, "disable") {
		t.Errorf("an unused label's reason says %q", s.reasonHelp.Text)
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
	if !strings.Contains(s.reasonHelp.Text, "undo") {
		t.Errorf("a used label's reason says %q", s.reasonHelp.Text)
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

// TestCodesReasonHintFitsSmallScreens: at 1024 × 600 the detail panel is
// about 320 px wide and the Reason field's hint, its placeholder, was cut
// ("Reason to disable or replace (at least 3 chara…"). The field says
// "Reason", and what the reason is for is said under it, wrapped, in
// English and Chinese.
func TestCodesReasonHintFitsSmallScreens(t *testing.T) {
	for _, lang := range []string{"en", "zh"} {
		if lang == "zh" {
			override = chineseTexts(t)
		}
		h := newHarness(t)
		codes := h.issue(t, 1)
		fyne.DoAndWait(func() { h.win.Resize(fyne.NewSize(1024, 600-menuBarHeight)) })
		s := codesDetail(t, h, codes[0])
		var placeholder, field float32
		fyne.DoAndWait(func() {
			placeholder = textSize(s.reason.PlaceHolder, theme.TextSize(), fyne.TextStyle{}, nil).Width
			field = s.reason.Size().Width - 2*theme.InnerPadding()
		})
		want := reasonHint(app.StatusUnused)
		override = nil
		if placeholder > field {
			t.Errorf("%s: the Reason field's placeholder %q needs %.0f px of its %.0f", lang, s.reason.PlaceHolder, placeholder, field)
		}
		if s.reasonHelp.Text != want || s.reasonHelp.Wrapping != fyne.TextWrapWord || !s.reasonHelp.Visible() {
			t.Errorf("%s: under Reason %q (wrapping %v, shown %v), want %q wrapped", lang, s.reasonHelp.Text, s.reasonHelp.Wrapping, s.reasonHelp.Visible(), want)
		}
	}
}
