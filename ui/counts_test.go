package ui

import (
	"context"
	"strings"
	"testing"
	"unicode"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"qrdesk/app"
	"qrdesk/printing"
)

// TestCloseDayRefusalsInSentenceCase: the close-day page names the reasons
// for refusals like its other figures ("Already used"), not in the Scan
// screen's capitals; in Chinese, translated.
func TestCloseDayRefusalsInSentenceCase(t *testing.T) {
	for _, lang := range []string{"en", "zh"} {
		if lang == "zh" {
			override = chineseTexts(t)
		}
		for _, r := range (app.DayFigures{}).Rows() {
			if !strings.HasPrefix(r.Key, "refused:") {
				continue
			}
			name := printing.FigureLabel(r.Key, r.Label, dayWords)
			switch {
			case lang == "en" && (name == strings.ToUpper(name) || !unicode.IsUpper([]rune(name)[0])):
				t.Errorf("%s is named %q on the day's page, want sentence case", r.Key, name)
			case lang == "zh" && strings.IndexFunc(name, func(r rune) bool { return r < 0x80 && unicode.IsLetter(r) }) >= 0:
				t.Errorf("%s is named %q in Chinese, want a translation", r.Key, name)
			}
		}
		override = nil
	}
}

// TestCountsSaySingular: one code is "1 code" (一个码 in Chinese), in the
// batch list and after issuing, and one sheet "1 sheet".
func TestCountsSaySingular(t *testing.T) {
	h := newHarness(t)
	if _, _, err := h.svc.Issue(context.Background(), app.IssueRequest{Count: 1}); err != nil {
		t.Fatal(err)
	}
	s := h.ui.issue
	fyne.DoAndWait(func() { h.ui.show("issue") })
	h.settle()
	row := widget.NewLabel("")
	fyne.DoAndWait(func() { s.batchList.UpdateItem(0, row) })
	if !strings.HasPrefix(row.Text, "Batch 1: 1 code for ") {
		t.Errorf("the batch list says %q, want \"Batch 1: 1 code for …\"", row.Text)
	}
	for _, tc := range []struct {
		got, want string
	}{
		{codeCount(1), "1 code"}, {codeCount(2), "2 codes"}, {sheetCount(1), "1 sheet"}, {labelCount(1), "1 label"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
	override = chineseTexts(t)
	defer func() { override = nil }()
	fyne.DoAndWait(func() { s.batchList.UpdateItem(0, row) })
	if !strings.Contains(row.Text, "共 1 个码") {
		t.Errorf("the batch list in Chinese says %q, want 共 1 个码", row.Text)
	}
}
