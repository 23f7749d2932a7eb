package ui

import (
	"context"
	"strings"
	"testing"

	"fyne.io/fyne/v2"

	"qrdesk/app"
)

func TestCodesFindsThePrintedSerial(t *testing.T) {
	h := newHarness(t)
	_, codes, err := h.svc.Issue(context.Background(), app.IssueRequest{Count: 10, Ref: "ORDER-4"})
	if err != nil {
		t.Fatal(err)
	}
	kb := keyboard{h.win}
	kb.ctrl(fyne.Key3)
	h.settle()
	kb.typeText("A0007")
	kb.press(fyne.KeyReturn)
	h.settle()
	s := h.ui.codes
	if len(s.rows) != 1 || s.current == nil || s.current.Code != codes[6].String() || s.code.Text != codes[6].String() {
		t.Fatalf("search A0007: %d rows, code shown %q; want %s selected", len(s.rows), s.code.Text, codes[6])
	}
}

func TestCodesColumnsFitTheWindow(t *testing.T) {
	h := newHarness(t)
	h.issue(t, 3)
	fyne.DoAndWait(func() { h.ui.show("codes") })
	h.settle()
	s := h.ui.codes
	var codeWidths []float32
	for _, size := range []fyne.Size{fyne.NewSize(1024, 600), fyne.NewSize(1366, 768), fyne.NewSize(1920, 1080)} {
		fyne.DoAndWait(func() { h.win.Resize(size) })
		total := float32(0)
		for _, w := range s.columns.widths {
			total += w
		}
		if tw := s.table.Size().Width; total+rowHeaderWidth > tw || tw == 0 {
			t.Fatalf("at %v the columns take %.0f px of a %.0f px table", size, total+rowHeaderWidth, tw)
		}
		codeWidths = append(codeWidths, s.columns.widths[0])
	}
	if !(codeWidths[0] < codeWidths[1] && codeWidths[1] < codeWidths[2]) {
		t.Fatalf("the Code column does not grow with the window: %v", codeWidths)
	}
}

func TestEnterPressesTheFocusedButton(t *testing.T) {
	h := newHarness(t)
	codes := h.issue(t, 2)
	kb := keyboard{h.win}
	kb.ctrl(fyne.Key3)
	h.settle()
	kb.typeText(codes[1])
	kb.press(fyne.KeyReturn)
	h.settle()
	s := h.ui.codes
	fyne.DoAndWait(func() { h.win.Canvas().Focus(s.reason) })
	kb.typeText("label torn")
	kb.press(fyne.KeyTab) // to Disable
	if h.win.Canvas().Focused() != s.disableBtn {
		t.Fatalf("Tab from Reason went to %T", h.win.Canvas().Focused())
	}
	kb.press(fyne.KeyReturn)
	h.settle()
	if s.current == nil || s.current.Status != app.StatusDisabled {
		t.Fatalf("Enter on the focused Disable button: %v", s.current)
	}
}

// TestCodesStatusFilterSpeaksTheClerksLanguage: the status list of the
// Codes filter named the statuses in English ("unused", "used") in a
// Chinese window, beside a Status column that says 未使用, 已使用. Each
// choice is the status in the window's language, and picking one filters
// by that status.
func TestCodesStatusFilterSpeaksTheClerksLanguage(t *testing.T) {
	override = chineseTexts(t)
	t.Cleanup(func() { override = nil })
	h := newHarness(t)
	codes := h.issue(t, 3)
	if _, err := h.svc.Redeem(context.Background(), codes[0], "li"); err != nil {
		t.Fatal(err)
	}
	s := h.ui.codes
	want := []string{"全部状态", "未使用", "已使用", "已过期", "已停用"}
	if got := s.status.Options; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("status choices %q, want %q", got, want)
	}
	fyne.DoAndWait(func() { s.status.SetSelected("已使用") })
	h.settle()
	if len(s.rows) != 1 || s.rows[0].Code != codes[0] {
		t.Fatalf("filtered by 已使用: %d rows %v, want the one used label %s", len(s.rows), s.rows, codes[0])
	}
}
