package ui

import (
	"context"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// TestTodaysBatchesShowThreeRows: at 1024 × 600 (the room under the menu,
// in English and Chinese, with and without the sign-in bar) Today's
// batches on Issue & print shows at least three whole rows, before and
// after the form said what Issue did. It showed one and a half: the form
// above it took the column's height. The screen still fits 1024 × 600
// with every field of the form showing its error.
func TestTodaysBatchesShowThreeRows(t *testing.T) {
	for _, lang := range []string{"en", "zh"} {
		for _, staff := range []bool{false, true} {
			if lang == "zh" {
				override = chineseTexts(t)
			}
			var h *harness
			if staff {
				sh := newSignInHarness(t, false)
				li, _ := sh.operators.Find(context.Background(), "li")
				fyne.DoAndWait(func() { sh.ui.env.signIn.set(&li) })
				h = sh.harness
			} else {
				h = newHarness(t)
			}
			for i := 0; i < 5; i++ {
				h.issue(t, 3)
			}
			s := h.ui.issue
			fyne.DoAndWait(func() {
				h.win.Resize(fyne.NewSize(1024, 600-menuBarHeight))
				h.ui.show("issue")
			})
			h.settle()
			rows := func(when string) {
				t.Helper()
				var list, row float32
				fyne.DoAndWait(func() {
					// Lay the window out again, as the driver does when a
					// minimum size changed (the status line shown).
					h.win.Resize(fyne.NewSize(1000, 500))
					h.win.Resize(fyne.NewSize(1024, 600-menuBarHeight))
					list = s.batchList.Size().Height
					row = s.batchList.CreateItem().MinSize().Height
				})
				t.Logf("%s, sign-in bar %v, %s: the list is %.0f px, a row %.0f px: %.1f rows", lang, staff, when, list, row, list/row)
				if list/row < 3 {
					t.Errorf("%s, sign-in bar %v, %s: Today's batches shows %.1f rows at 1024 × 600, want at least 3", lang, staff, when, list/row)
				}
			}
			rows("before issuing")
			fyne.DoAndWait(func() {
				s.count.SetText("2")
				test.Tap(s.issueBtn)
			})
			h.settle()
			if s.status.Text == "" || !s.status.Visible() {
				t.Fatalf("%s: Issue said nothing: %q", lang, s.status.Text)
			}
			rows("after issuing")

			fyne.DoAndWait(func() {
				s.count.SetText("0")
				s.date.SetText("2026-13-45")
				s.typ.SetText(string(make([]rune, 41)))
				s.ref.SetText("Box ☃ 7")
			})
			h.settle()
			var min fyne.Size
			fyne.DoAndWait(func() { min = h.win.Content().MinSize() })
			if min.Width > 1024 || min.Height > 600-menuBarHeight {
				t.Errorf("%s, sign-in bar %v: with the form's errors shown Issue & print needs %.0f × %.0f px; 1024 × 600 has 1024 × %d under the menu", lang, staff, min.Width, min.Height, 600-menuBarHeight)
			}
			override = nil
		}
	}
}
