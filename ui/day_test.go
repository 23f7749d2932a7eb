package ui

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"qrdesk/app"
)

// codesDetail shows one label in the Codes screen's detail panel.
func codesDetail(t *testing.T, h *harness, code string) *codesScreen {
	t.Helper()
	s := h.ui.codes
	fyne.DoAndWait(func() {
		h.ui.show("codes")
		s.rows = nil // not the rows of an earlier search
		s.query.SetText(code)
		s.search(0)
	})
	waitFor(t, "the label", func() bool { return len(s.rows) == 1 && s.rows[0].Code == code })
	h.settle() // the search's last touches of the screen are done
	fyne.DoAndWait(func() { s.showDetail(s.rows[0]) })
	h.settle() // and the history's
	return s
}

func TestCodesReplaceAndUndo(t *testing.T) {
	h := newHarness(t)
	codes := h.issue(t, 2)
	if _, err := h.svc.Redeem(context.Background(), codes[1], "li"); err != nil {
		t.Fatal(err)
	}

	s := codesDetail(t, h, codes[0])
	if s.replaceBtn.Disabled() || !s.undoBtn.Disabled() {
		t.Fatal("an unused label: Replace must be on, Undo off")
	}
	fyne.DoAndWait(func() { test.Tap(s.replaceBtn) })
	if !strings.Contains(s.message.Text, "reason") {
		t.Fatalf("replace without a reason: %q", s.message.Text)
	}
	fyne.DoAndWait(func() {
		s.reason.SetText("label torn")
		test.Tap(s.replaceBtn)
	})
	if len(h.win.Canvas().Overlays().List()) == 0 {
		t.Fatal("Replace did not ask for confirmation")
	}
	fyne.DoAndWait(func() { s.runReplace(codes[0], "label torn") })
	h.settle()
	waitFor(t, "the new label", func() bool { return s.current != nil && s.current.Code != codes[0] })
	newCode := s.current.Code
	if !strings.Contains(s.message.Text, newCode) || !strings.Contains(s.message.Text, "batch 2") {
		t.Fatalf("message after replace: %q", s.message.Text)
	}
	waitFor(t, "the new label's history", func() bool { return strings.Contains(s.history.Text, "replaces "+codes[0]) })
	if v, _ := h.svc.Check(context.Background(), codes[0]); v.Outcome != app.OutcomeDisabled || v.DisabledReason != "replaced by "+newCode {
		t.Fatalf("old label after replace: %+v", v)
	}

	s = codesDetail(t, h, codes[0])
	if !s.replaceBtn.Disabled() {
		t.Fatal("a disabled label: Replace must be off (enable it first)")
	}

	h.clock.Advance(time.Minute)
	s = codesDetail(t, h, codes[1])
	if !s.replaceBtn.Disabled() || s.undoBtn.Disabled() {
		t.Fatal("a used label: Replace must be off, Undo on")
	}
	fyne.DoAndWait(func() { s.runUndo(codes[1], "wrong parcel") })
	h.settle()
	waitFor(t, "the label unused again", func() bool {
		return s.current != nil && s.current.Code == codes[1] && s.current.Status == app.StatusUnused
	})
	waitFor(t, "the undo in the history", func() bool {
		return strings.Contains(s.history.Text, "undo") && strings.Contains(s.history.Text, "wrong parcel")
	})

	// Too late: the reason is shown, nothing changes.
	if v, err := h.svc.Redeem(context.Background(), codes[1], "li"); err != nil || v.Outcome != app.OutcomeRedeemed {
		t.Fatalf("redeem after the undo: %+v %v", v, err)
	}
	h.clock.Advance(6 * time.Minute)
	s = codesDetail(t, h, codes[1])
	fyne.DoAndWait(func() { s.runUndo(codes[1], "wrong parcel") })
	h.settle()
	waitFor(t, "the refusal", func() bool { return strings.Contains(s.message.Text, "too late") })
}

func TestCloseDayDialog(t *testing.T) {
	h := newHarness(t)
	codes := h.issue(t, 3)
	h.svc.Redeem(context.Background(), codes[0], "li")
	h.clock.Advance(8 * time.Hour)
	refreshed := make(chan bool, 1)
	d := newCloseDayDialog(h.ui.env, func() { refreshed <- true })
	fyne.DoAndWait(func() {
		d.expire.SetChecked(true)
		d.run()
	})
	h.settle()
	waitFor(t, "the close", func() bool { return d.closed != nil })
	<-refreshed
	for _, want := range []string{"Redeemed", "by li", "Unused labels expired by this close: 2", "Still unused (labels of the day)"} {
		if !strings.Contains(d.text, want) {
			t.Errorf("the dialog does not say %q:\n%s", want, d.text)
		}
	}
	if d.closed.Figures.Expired != 2 || d.closed.Figures.Unused != 0 {
		t.Fatalf("figures %+v", d.closed.Figures)
	}
	path := filepath.Join(t.TempDir(), "day.pdf")
	if err := d.savePDF(*d.closed, path); err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("pdftotext"); err == nil {
		out, err := exec.Command("pdftotext", path, "-").Output()
		if err != nil || !strings.Contains(string(out), "Day closed") || !strings.Contains(string(out), "by li") {
			t.Fatalf("the saved page: %v\n%s", err, out)
		}
	}
	// Closing again lists the changes since.
	h.svc.Redeem(context.Background(), codes[0], "li")
	fyne.DoAndWait(func() { d.run() })
	h.settle()
	waitFor(t, "the second close", func() bool { return strings.Contains(d.text, "Changed since the close at") })
	<-refreshed
	if !strings.Contains(d.text, "Scans: 1, now 2") {
		t.Fatalf("second close:\n%s", d.text)
	}
}

// TestTodayRefusalNamesWhole: every refusal card on Today shows its
// reason whole (no "REFUSED BY THE S…"), in English and Chinese.
func TestTodayRefusalNamesWhole(t *testing.T) {
	for _, lang := range []string{"en", "zh"} {
		if lang == "zh" {
			override = chineseTexts(t)
		}
		h := newHarness(t)
		fyne.CurrentApp().Settings().SetTheme(newTheme())
		for o, c := range h.ui.today.refused {
			l := c.label
			w := fyne.MeasureText(l.Text, theme.TextSize(), l.TextStyle).Width + 4*theme.InnerPadding()
			if w > refusalCardWidth {
				t.Errorf("%s %s: %q needs %.0f px on a %d px card", lang, o, l.Text, w, refusalCardWidth)
			}
		}
		override = nil
	}
}
