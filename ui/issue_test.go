package ui

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"qrdesk/app"
	"qrdesk/internal/testclock"
)

// skipWithoutShellLP skips a test that prints through a fake CUPS lp (a
// shell script) on Windows, which has neither: a Windows desk prints by
// saving the PDF until it prints through the Windows spooler (issue 18).
func skipWithoutShellLP(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake lp is a shell script, and Windows has no CUPS: the print path is tested on Linux")
	}
}

// fakeLP puts an lp on PATH that records its arguments in the returned
// file and answers as CUPS does, with queue job Office-7.
func fakeLP(t *testing.T) (argsFile string) {
	t.Helper()
	skipWithoutShellLP(t)
	dir := t.TempDir()
	argsFile = filepath.Join(dir, "args")
	script := "#!/bin/sh\nprintf '%s\\n' \"$@\" >> " + argsFile + "\ncat > /dev/null\necho 'request id is Office-7 (1 file(s))'\n"
	if err := os.WriteFile(filepath.Join(dir, "lp"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return argsFile
}

// settle waits until the screens' background work is done.
func (h *harness) settle() { h.ui.env.jobs.Wait() }

func (h *harness) batches(t *testing.T) []app.Batch {
	t.Helper()
	day := app.Day(h.clock.Now())
	b, err := h.svc.BatchesOn(context.Background(), app.FormatDate(day))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestIssueAsksBeforeGoingOverTheDailyQuantity(t *testing.T) {
	h := newHarness(t)
	h.svc.UpdateSettings(context.Background(), map[string]string{"daily": "100"}, "test")
	h.ui.env.reloadSettings()
	s := h.ui.issue
	kb := keyboard{h.win}
	kb.ctrl(fyne.Key2)
	kb.typeText("100")
	// Enter in Count issues; a second press while it runs does nothing.
	fyne.DoAndWait(func() {
		kb.keyDown(fyne.KeyReturn)
		test.Tap(s.issueBtn)
	})
	h.settle()
	if !strings.Contains(s.status.Text, "Batch 1: 100 codes") || len(h.batches(t)) != 1 {
		t.Fatalf("first batch: %q, %d batches", s.status.Text, len(h.batches(t)))
	}

	// The second click of a double click comes after the fast batch: it
	// asks, and Esc leaves it at one batch. (Fyne's test driver runs the
	// batch's callback on its own goroutine, so the tap above may already
	// have come after the batch and asked.)
	if h.win.Canvas().Overlays().Top() == nil {
		if s.issuing {
			t.Fatal("the Issue button stays locked after the batch, with no question open")
		}
		fyne.DoAndWait(func() { test.Tap(s.issueBtn) })
		h.settle()
	}
	if h.win.Canvas().Overlays().Top() == nil {
		t.Fatal("no question before going over the daily quantity")
	}
	if !s.issueBtn.Disabled() {
		t.Fatal("the Issue button is not locked while the question is open")
	}
	kb.press(fyne.KeyEscape)
	if h.win.Canvas().Overlays().Top() != nil || s.issueBtn.Disabled() {
		t.Fatal("Esc did not close the question and unlock the button")
	}
	if n := len(h.batches(t)); n != 1 || !strings.Contains(s.status.Text, "Nothing issued") {
		t.Fatalf("after Esc: %d batches, status %q", n, s.status.Text)
	}

	// Enter says yes.
	fyne.DoAndWait(func() { test.Tap(s.issueBtn) })
	h.settle()
	if h.win.Canvas().Overlays().Top() == nil {
		t.Fatal("no question before going over the daily quantity")
	}
	kb.press(fyne.KeyReturn)
	h.settle()
	if !strings.Contains(s.status.Text, "Batch 2: 100 codes") {
		t.Fatalf("after Enter: %q", s.status.Text)
	}
	if n := len(h.batches(t)); n != 2 {
		t.Fatalf("%d batches after saying yes, want 2", n)
	}
}

func TestStartPositionCountsFromOne(t *testing.T) {
	h := newHarness(t)
	s := h.ui.issue
	h.issue(t, 50)
	fyne.DoAndWait(func() {
		h.ui.show("issue")
		s.template.SetSelected("L7160") // 21 labels a sheet
	})
	h.settle()
	fyne.DoAndWait(func() { s.start.SetText("5") })
	h.settle()
	if !strings.Contains(s.sheets.Text, "Sheet 1 of 3: labels A0001 to A0017 at positions 5 to 21") {
		t.Fatalf("start position 5: %q", s.sheets.Text)
	}
	o, err := s.printOptions()
	if err != nil || o.Start != 4 {
		t.Fatalf("start position 5 skips %d positions (%v), want 4", o.Start, err)
	}
	for _, bad := range []string{"0", "22", "x"} {
		fyne.DoAndWait(func() { s.start.SetText(bad) })
		if !strings.Contains(s.sheets.Text, "use 1 to 21") {
			t.Fatalf("start position %q: %q", bad, s.sheets.Text)
		}
	}
	fyne.DoAndWait(func() { s.start.SetText("1") })
	h.settle()
	if !strings.Contains(s.sheets.Text, "Sheet 1 of 3: labels A0001 to A0021 at positions 1 to 21") || s.preview.Image == nil {
		t.Fatalf("start position 1: %q", s.sheets.Text)
	}
	if s.cache.loads != 1 {
		t.Fatalf("the batch was read %d times for the previews, want once", s.cache.loads)
	}
	// A roll has one position.
	fyne.DoAndWait(func() { s.template.SetSelected("roll-50x30") })
	h.settle()
	fyne.DoAndWait(func() { s.start.SetText("3") })
	if !strings.Contains(s.sheets.Text, "roll") {
		t.Fatalf("start 3 on a roll: %q", s.sheets.Text)
	}
}

func TestNumberedPreviewSlots(t *testing.T) {
	h := newHarness(t)
	s := h.ui.issue
	h.issue(t, 3)
	fyne.DoAndWait(func() {
		h.ui.show("issue")
		s.template.SetSelected("L7160")
		s.start.SetText("2")
	})
	h.settle()
	if s.preview.Image == nil || !strings.Contains(s.sheets.Text, "positions 2 to 4") {
		t.Fatalf("preview from position 2: %q", s.sheets.Text)
	}
	o, _ := s.printOptions()
	img := s.preview.Image
	// Position 1 is left blank (grey), position 21 is empty but numbered:
	// its corner has the number's blue.
	x, y := o.Template.LabelRect(0)
	if c := img.At(int(x*previewPxPerMM)+o.Template.PerPage(), int(y*previewPxPerMM)+60); c != (img.ColorModel().Convert(skippedColor)) {
		t.Fatalf("skipped position 1 is %v, want grey", c)
	}
	x, y = o.Template.LabelRect(20)
	blue := 0
	for dx := 0; dx < 40; dx++ {
		for dy := 0; dy < 30; dy++ {
			r, g, b, _ := img.At(int(x*previewPxPerMM)+dx, int(y*previewPxPerMM)+dy).RGBA()
			if b > 0x8000 && r < 0x4000 && g < 0x8000 {
				blue++
			}
		}
	}
	if blue == 0 {
		t.Fatal("position 21 has no number")
	}
}

// TestSavePDFIsAPrint: one rule for the window and 'qrdesk print -o': a
// PDF of live labels is a print job. Save PDF logs one (it names the file);
// printing or saving those labels again is a reprint: asked which labels,
// and logged as such.
func TestSavePDFIsAPrint(t *testing.T) {
	h := newHarness(t)
	h.ui.env.saveDir = t.TempDir()
	argsFile := fakeLP(t)
	s := h.ui.issue
	h.issue(t, 30)
	kb := keyboard{h.win}
	fyne.DoAndWait(func() {
		h.ui.show("issue")
		s.template.SetSelected("L7160")
		s.printer.Options = []string{"Office"}
		s.printer.SetSelected("Office")
	})
	h.settle()
	// Space on the focused Save PDF button saves; no dialog takes the space.
	fyne.DoAndWait(func() { h.win.Canvas().Focus(s.saveBtn) })
	kb.typeText(" ")
	want := filepath.Join(h.ui.env.saveDir, "qrdesk-batch-1.pdf")
	h.settle()
	if !strings.Contains(s.printStatus.Text, "Saved 2 sheets (30 labels) to "+want+": logged as a print job") {
		t.Fatalf("the saved PDF: status %q", s.printStatus.Text)
	}
	if h.win.Canvas().Overlays().Top() != nil {
		t.Fatal("Save PDF opened a dialog")
	}
	if data, err := os.ReadFile(want); err != nil || !strings.HasPrefix(string(data), "%PDF") {
		t.Fatalf("no PDF at %s: %v", want, err)
	}
	job, recs, err := h.svc.Store.PrintJobCodes(context.Background(), 1)
	if err != nil || job.Output != want || job.Reprint || len(recs) != 30 {
		t.Fatalf("job 1: %+v, %d codes, %v; want a print of 30 labels to %s", job, len(recs), err, want)
	}
	// Printing the saved labels is printing them again: asked, Esc cancels.
	fyne.DoAndWait(func() { test.Tap(s.printBtn) })
	h.settle()
	if h.win.Canvas().Overlays().Top() == nil {
		t.Fatalf("printing the saved labels did not ask which to print again: status %q", s.printStatus.Text)
	}
	kb.press(fyne.KeyEscape)
	if h.win.Canvas().Overlays().Top() != nil {
		t.Fatal("Esc did not cancel the reprint question")
	}
	// Save PDF again asks too; sheet 1 and Enter save it as a reprint,
	// without overwriting the first file.
	fyne.DoAndWait(func() { test.Tap(s.saveBtn) })
	h.settle()
	if h.win.Canvas().Overlays().Top() == nil {
		t.Fatalf("saving the labels again did not ask which: status %q", s.printStatus.Text)
	}
	kb.typeText("1")
	kb.press(fyne.KeyReturn)
	h.settle()
	if !strings.Contains(s.printStatus.Text, "again to") || !strings.Contains(s.printStatus.Text, "qrdesk-batch-1-sheet-1.pdf") || !strings.Contains(s.printStatus.Text, "logged as a reprint") {
		t.Fatalf("the second PDF: status %q", s.printStatus.Text)
	}
	if job, recs, err := h.svc.Store.PrintJobCodes(context.Background(), 2); err != nil || !job.Reprint || len(recs) != 21 {
		t.Fatalf("job 2: %+v, %d codes, %v; want a reprint of sheet 1's 21 labels", job, len(recs), err)
	}
	if args, _ := os.ReadFile(argsFile); len(args) != 0 {
		t.Fatalf("the printer got a job:\n%s", args)
	}
}

// findText returns the first text drawn on the window that contains s.
func findText(w fyne.Window, s string) *canvas.Text {
	for _, o := range test.LaidOutObjects(w.Canvas().Content()) {
		if t, ok := o.(*canvas.Text); ok && o.Visible() && strings.Contains(t.Text, s) {
			return t
		}
	}
	return nil
}

func TestIssueFormSaysWhatIsWrongAsItIsTyped(t *testing.T) {
	h := newHarness(t)
	s := h.ui.issue
	kb := keyboard{h.win}
	kb.ctrl(fyne.Key2)
	h.settle()
	before := fyne.CurrentApp().Driver().AbsolutePositionForObject(s.issueBtn)
	fyne.DoAndWait(func() { h.win.Canvas().Focus(s.date) })
	kb.typeText("2026-13-45")
	kb.press(fyne.KeyTab)
	// Said at once, in the error colour, before anything is clicked.
	msg := findText(h.win, "is not a date")
	if msg == nil {
		t.Fatal("a bad date is not reported while typing")
	}
	if msg.Color != theme.Color(theme.ColorNameError) {
		t.Fatalf("the date error is drawn in %v, not the error colour", msg.Color)
	}
	if after := fyne.CurrentApp().Driver().AbsolutePositionForObject(s.issueBtn); after != before {
		t.Fatalf("the error moved the Issue button from %v to %v", before, after)
	}
	fyne.DoAndWait(func() { test.Tap(s.issueBtn) })
	h.settle()
	if len(h.batches(t)) != 0 || !strings.Contains(s.status.Text, "is not a date") {
		t.Fatalf("issued with a bad date: status %q", s.status.Text)
	}
	fyne.DoAndWait(func() { s.date.SetText(""); s.expir.SetText("sometimes") })
	if err := s.validateIssueForm(); err == nil || !strings.Contains(err.Error(), "not an expiry") {
		t.Fatalf("expiry 'sometimes': %v", err)
	}
}

func TestPrintFailuresSpeakTheWindowsLanguage(t *testing.T) {
	h := newHarness(t)
	s := h.ui.issue
	h.issue(t, 5)
	fyne.DoAndWait(func() {
		h.ui.show("issue")
		s.template.SetSelected("L7160")
		s.printer.Options = []string{"Office"}
		s.printer.SetSelected("Office")
	})
	h.settle()
	// A printer that refuses the job.
	skipWithoutShellLP(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "lp"), []byte("#!/bin/sh\ncat >/dev/null\necho 'lp: Error - The printer or class does not exist.' >&2\nexit 1\n"), 0o755)
	t.Setenv("PATH", dir)
	fyne.DoAndWait(func() { test.Tap(s.printBtn) })
	h.settle()
	if !strings.Contains(s.printStatus.Text, "does not exist") || !strings.Contains(s.printStatus.Text, "press Print again") || strings.Contains(s.printStatus.Text, "--resume") {
		t.Fatalf("a refused job says %q", s.printStatus.Text)
	}
	// Nothing was counted as printed: the next print is not a reprint.
	if b := h.batches(t); b[0].Printed != 0 {
		t.Fatalf("a failed job counted %d prints", b[0].Printed)
	}
	// No CUPS at all.
	t.Setenv("PATH", t.TempDir())
	fyne.DoAndWait(func() { test.Tap(s.printBtn) })
	h.settle()
	if !strings.Contains(s.printStatus.Text, "Save PDF") || h.win.Canvas().Overlays().Top() != nil {
		t.Fatalf("without CUPS: %q", s.printStatus.Text)
	}
}

func TestExpiryIsChosenInTheClerksLanguage(t *testing.T) {
	h := newHarness(t)
	s := h.ui.issue
	fyne.DoAndWait(func() { h.ui.show("issue") })
	h.settle()
	// The choices are the translated texts; each maps to a value the
	// service takes, and typed values still work.
	for _, c := range expiryChoices() {
		if _, err := app.ParseExpiry(expiryValue(c.text)); err != nil || c.text == "" {
			t.Fatalf("choice %q → %q: %v", c.text, expiryValue(c.text), err)
		}
	}
	fyne.DoAndWait(func() {
		s.count.SetText("3")
		s.expir.SetText(expiryChoiceTexts()[1]) // end of the label's day
		test.Tap(s.issueBtn)
	})
	h.settle()
	recs, _ := h.svc.Search(context.Background(), app.SearchQuery{Limit: 10})
	if len(recs) != 3 || recs[0].ExpireAt != app.Day(h.clock.Now()).AddDate(0, 0, 1).Unix() {
		t.Fatalf("issued %d codes expiring at %v; want 3 at the end of the day (%q)", len(recs), recs, s.status.Text)
	}
	fyne.DoAndWait(func() { s.expir.SetText("36h") })
	if err := s.validateIssueForm(); err != nil {
		t.Fatalf("typed 36h: %v", err)
	}
}

// TestSavePDFSaysItUnderItsButton: what Save PDF did is said just under
// the Print and Save PDF buttons, not under Issue across the window.
func TestSavePDFSaysItUnderItsButton(t *testing.T) {
	h := newHarness(t)
	h.ui.env.saveDir = t.TempDir()
	s := h.ui.issue
	h.issue(t, 5)
	fyne.DoAndWait(func() {
		h.ui.show("issue")
		s.template.SetSelected("L7160")
	})
	h.settle()
	fyne.DoAndWait(func() { test.Tap(s.saveBtn) })
	h.settle()
	var said *widget.Label
	fyne.DoAndWait(func() { said = savedSaidBy(s) })
	if said == nil {
		t.Fatalf("no label says the PDF was saved (status %q)", s.status.Text)
	}
	d := fyne.CurrentApp().Driver()
	var btn, msg fyne.Position
	var btnH float32
	fyne.DoAndWait(func() {
		btn, msg, btnH = d.AbsolutePositionForObject(s.printBtn), d.AbsolutePositionForObject(said), s.saveBtn.Size().Height
	})
	if msg.X < btn.X-1 || msg.Y < btn.Y+btnH || msg.Y > btn.Y+btnH+3*btnH {
		t.Fatalf("the result is at %v; the Print button at %v (%.0f high): want it just under the buttons", msg, btn, btnH)
	}
}

// savedSaidBy is the issue screen's label that says a PDF was saved.
func savedSaidBy(s *issueScreen) *widget.Label {
	for _, l := range []*widget.Label{s.status, s.printStatus} {
		if l.Visible() && strings.Contains(l.Text, "Saved 1 sheet") {
			return l
		}
	}
	return nil
}

// TestTodaysBatchesNameTheirRef: a day of imported orders is a batch per
// order, and *Today's batches* said only "Batch 3: 3 codes for
// 2026-12-05, printed 0": the clerk printing order 4711's labels could
// not tell its batch from the others. Each row names the batch's ref (the
// order number) and type; a long ref ends in "…" instead of widening the
// column.
func TestTodaysBatchesNameTheirRef(t *testing.T) {
	h := newHarness(t)
	for _, req := range []app.IssueRequest{{Count: 3, Ref: "4711", Type: "Paket"}, {Count: 2, Ref: "Müller Straße 5, Zoë Groß-Bäckerei"}, {Count: 1}} {
		if _, _, err := h.svc.Issue(context.Background(), req); err != nil {
			t.Fatal(err)
		}
	}
	fyne.DoAndWait(func() { h.ui.show("issue") })
	h.settle()
	s := h.ui.issue
	var rows []string
	var truncated bool
	fyne.DoAndWait(func() {
		for i := range s.batches {
			o := s.batchList.CreateItem()
			s.batchList.UpdateItem(i, o)
			l := o.(*widget.Label)
			rows = append(rows, l.Text)
			truncated = l.Truncation == fyne.TextTruncateEllipsis
		}
	})
	day := testclock.Date(0)
	want := []string{
		"Batch 3: 1 code for " + day + ", printed 0",
		"Batch 2: 2 codes for " + day + ", printed 0 · Ref Müller Straße 5, Zoë Groß-Bäckerei",
		"Batch 1: 3 codes for " + day + ", printed 0 · Paket · Ref 4711",
	}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Fatalf("today's batches:\n%s\nwant\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
	if !truncated {
		t.Fatal("a batch row with a long ref widens the column instead of ending in …")
	}
}
