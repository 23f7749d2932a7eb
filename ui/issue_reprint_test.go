package ui

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"qrdesk/app"
)

// keepingLP puts an lp on PATH that keeps each job's PDF (job-1.pdf …) in
// the returned folder and its arguments in args, answering as CUPS does.
func keepingLP(t *testing.T) (dir string) {
	t.Helper()
	skipWithoutShellLP(t)
	dir = t.TempDir()
	script := "#!/bin/sh\nprintf '%s\\n' \"$@\" >> " + dir + "/args\nn=$(ls " + dir + " | grep -c pdf)\ncat > " + dir + "/job-$((n+1)).pdf\necho 'request id is Office-7 (1 file(s))'\n"
	if err := os.WriteFile(filepath.Join(dir, "lp"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return dir
}

// pdfSerials decodes a PDF back to text and returns the serials its labels
// show, sorted.
func pdfSerials(t *testing.T, path string) []int {
	t.Helper()
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Skip("pdftotext is not installed (scripts/install-deps.sh installs it)")
	}
	text, err := exec.Command("pdftotext", path, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext %s: %v", path, err)
	}
	var got []int
	for _, m := range regexp.MustCompile(`\d{6}-A(\d{4})\b`).FindAllStringSubmatch(string(text), -1) {
		n, _ := strconv.Atoi(m[1])
		got = append(got, n)
	}
	sort.Ints(got)
	return got
}

func serialRange(first, last int) []int {
	var out []int
	for n := first; n <= last; n++ {
		out = append(out, n)
	}
	return out
}

// TestPrintAgainOneSheet: a jammed sheet is printed again alone. Print on
// a printed batch asks which labels; the preview shows the chosen sheet;
// the printer gets that sheet's labels only, and the job log names them.
func TestPrintAgainOneSheet(t *testing.T) {
	h := newHarness(t)
	lp := keepingLP(t)
	s := h.ui.issue
	kb := keyboard{h.win}
	h.issue(t, 50)
	fyne.DoAndWait(func() {
		h.ui.show("issue")
		s.template.SetSelected("L7160") // 21 a sheet
		s.start.SetText("5")            // sheet 1: serials 1–17, sheet 2: 18–38, sheet 3: 39–50
		s.printer.Options = []string{"Office"}
		s.printer.SetSelected("Office")
	})
	h.settle()
	fyne.DoAndWait(func() { test.Tap(s.printBtn) })
	h.settle()
	if !strings.Contains(s.printStatus.Text, "Batch 1: 3 sheets (50 labels) sent to Office") {
		t.Fatalf("the first print: %q", s.printStatus.Text)
	}

	// Print again asks which labels, the sheet's number first.
	fyne.DoAndWait(func() { test.Tap(s.printBtn) })
	h.settle()
	if h.win.Canvas().Overlays().Top() == nil || s.reprint == nil {
		t.Fatal("printing a printed batch again did not ask which labels")
	}
	f := s.reprint
	if h.win.Canvas().Focused() != f.sheet {
		t.Fatal("the sheet number does not have the keyboard")
	}
	kb.typeText("4")
	h.settle()
	if !strings.Contains(f.message.Text, "choose a sheet from 1 to 3") {
		t.Fatalf("sheet 4 of 3: the form says %q", f.message.Text)
	}
	fyne.DoAndWait(func() { f.sheet.SetText("") })
	kb.typeText("2")
	h.settle()
	// The preview shows sheet 2 as it will print.
	want := "Print again: sheet 2 of 3, labels A0018 to A0038 (21 labels) on 1 sheet from position 1"
	if s.sheets.Text != want || s.preview.Image == nil || f.message.Text != "" {
		t.Fatalf("the preview says %q (message %q), want %q", s.sheets.Text, f.message.Text, want)
	}
	kb.press(fyne.KeyReturn)
	h.settle()
	if h.win.Canvas().Overlays().Top() != nil {
		t.Fatal("the form is still up after Enter")
	}
	if !strings.Contains(s.printStatus.Text, "Batch 1, sheet 2: 1 sheet (21 labels) sent again to Office, printer queue job Office-7") {
		t.Fatalf("the reprint: %q", s.printStatus.Text)
	}
	args, _ := os.ReadFile(filepath.Join(lp, "args"))
	if !strings.Contains(string(args), "qrdesk batch 1 sheet 2 (21 labels) reprint") {
		t.Fatalf("the queue job's title; lp got:\n%s", args)
	}
	// The PDF the printer got holds sheet 2's labels and no other.
	if got := pdfSerials(t, filepath.Join(lp, "job-2.pdf")); !slices.Equal(got, serialRange(18, 38)) {
		t.Fatalf("the reprinted PDF shows serials %v, want 18 to 38", got)
	}
	// Logged as a reprint of those 21 labels.
	job, recs, err := h.svc.Store.PrintJobCodes(context.Background(), 2)
	if err != nil || !job.Reprint || len(recs) != 21 {
		t.Fatalf("job 2: %+v, %d codes, %v; want a reprint of 21", job, len(recs), err)
	}
	for i, r := range recs {
		if c, _ := app.Parse(r.Code); c.Serial != 18+i {
			t.Fatalf("the reprint log names serial %d at %d, want %d", c.Serial, i, 18+i)
		}
	}

	// A range of serials; Esc first leaves it unprinted.
	fyne.DoAndWait(func() { test.Tap(s.printBtn) })
	h.settle()
	kb.press(fyne.KeyEscape)
	if h.win.Canvas().Overlays().Top() != nil || s.part != nil || !strings.Contains(s.printStatus.Text, "Nothing printed") {
		t.Fatalf("Esc: overlay up or part %v, status %q", s.part, s.printStatus.Text)
	}
	fyne.DoAndWait(func() { test.Tap(s.printBtn) })
	h.settle()
	f = s.reprint
	fyne.DoAndWait(func() { h.win.Canvas().Focus(f.from) })
	kb.typeText("A0040")
	kb.press(fyne.KeyTab)
	kb.typeText("a0042")
	h.settle()
	// They go on the partly used sheet: the first print from position 5
	// ended at 12 of its third sheet, so Start is 13 (TestStartFollowsThePartlyUsedSheet).
	if want := "Print again: A0040–A0042, labels A0040 to A0042 (3 labels) on 1 sheet from position 13"; s.sheets.Text != want {
		t.Fatalf("the preview says %q, want %q", s.sheets.Text, want)
	}
	kb.press(fyne.KeyReturn)
	h.settle()
	if got := pdfSerials(t, filepath.Join(lp, "job-3.pdf")); !slices.Equal(got, serialRange(40, 42)) {
		t.Fatalf("the reprinted PDF shows serials %v, want 40 to 42", got)
	}
	if _, recs, _ := h.svc.Store.PrintJobCodes(context.Background(), 3); len(recs) != 3 {
		t.Fatalf("job 3 names %d codes, want 3", len(recs))
	}
	if s.start.Text != "16" {
		t.Fatalf("after three labels from position 13, Start is %q, want 16", s.start.Text)
	}
}

// TestReprintFormSaysWhatEachSheetHolds: the form that asks which labels
// to print again leaves its fields empty and says, under them, what the
// batch's sheets hold ("Sheet 1 = A0001–A0017 (17 labels) … Sheet 3 =
// A0039–A0050 (12 labels)") and its serials. Its placeholders were
// serials ("A0041", "A0060") that read as values typed in. One label
// printed before is "1 of these labels was", not "were".
func TestReprintFormSaysWhatEachSheetHolds(t *testing.T) {
	h := newHarness(t)
	h.ui.env.saveDir = t.TempDir()
	s := h.ui.issue
	h.issue(t, 50)
	fyne.DoAndWait(func() {
		h.ui.show("issue")
		s.template.SetSelected("L7160") // 21 a sheet
		s.start.SetText("5")
	})
	h.settle()
	fyne.DoAndWait(func() { test.Tap(s.saveBtn) })
	h.settle()
	fyne.DoAndWait(func() { test.Tap(s.saveBtn) })
	h.settle()
	f := s.reprint
	if f == nil {
		t.Fatal("saving a printed batch again did not ask which labels")
	}
	serial := regexp.MustCompile(`^[A-Z]?\d{3,}$`)
	for _, e := range []*escEntry{f.sheet, f.from, f.to} {
		if e.Text != "" || serial.MatchString(e.PlaceHolder) {
			t.Errorf("a field shows %q (placeholder %q): it reads as a value typed in", e.Text, e.PlaceHolder)
		}
	}
	if want := "Sheet 1 = A0001–A0017 (17 labels) … Sheet 3 = A0039–A0050 (12 labels)"; f.sheetItem.HintText != want {
		t.Errorf("under Sheet: %q, want %q", f.sheetItem.HintText, want)
	}
	if want := "As on the labels: A0001 to A0050"; f.serialItem.HintText != want {
		t.Errorf("under the serials: %q, want %q", f.serialItem.HintText, want)
	}
	if !strings.HasPrefix(f.intro.Text, "50 of these labels were printed before") {
		t.Errorf("the question: %q", f.intro.Text)
	}
	keyboard{h.win}.press(fyne.KeyEscape)

	h.issue(t, 1)
	fyne.DoAndWait(func() { s.refresh() })
	h.settle()
	fyne.DoAndWait(func() {
		for i, b := range s.batches {
			if b.ID == 2 {
				s.batchList.Select(i)
			}
		}
	})
	h.settle()
	fyne.DoAndWait(func() { test.Tap(s.saveBtn) })
	h.settle()
	fyne.DoAndWait(func() { test.Tap(s.saveBtn) })
	h.settle()
	if s.reprint == nil || !strings.HasPrefix(s.reprint.intro.Text, "1 of these labels was printed before") {
		t.Fatalf("one label printed before: %+v", s.reprint)
	}
}
