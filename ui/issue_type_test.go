package ui

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// TestTypeSaysWhereItShows: the Issue form's Type said "printed on the
// label", and no label prints it. A batch issued with the type "COLDBOX"
// and saved as a PDF: the PDF's text has no COLDBOX; the type names the
// batch in Today's batches; and the field's hint says so, in English and
// Chinese, never that it is printed.
func TestTypeSaysWhereItShows(t *testing.T) {
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Skip("pdftotext is not installed (scripts/install-deps.sh installs it)")
	}
	h := newHarness(t)
	h.ui.env.saveDir = t.TempDir()
	s := h.ui.issue
	fyne.DoAndWait(func() {
		h.ui.show("issue")
		s.count.SetText("2")
		s.typ.SetText("COLDBOX")
		test.Tap(s.issueBtn)
	})
	h.settle()
	fyne.DoAndWait(func() { s.template.SetSelected("L7160"); test.Tap(s.saveBtn) })
	h.settle()
	text, err := exec.Command("pdftotext", filepath.Join(h.ui.env.saveDir, "qrdesk-batch-1.pdf"), "-").Output()
	if err != nil {
		t.Fatalf("pdftotext: %v (the screen says %q)", err, s.printStatus.Text)
	}
	if strings.Contains(string(text), "COLDBOX") {
		t.Fatalf("the labels print the type now: the hint must say so\n%s", text)
	}
	if len(s.batches) != 1 || !strings.Contains(batchRow(s.batches[0]), "COLDBOX") {
		t.Fatalf("Today's batches does not name the type: %v", s.batches)
	}
	for _, lang := range []string{"en", "zh"} {
		if lang == "zh" {
			override = chineseTexts(t)
		}
		hint := s.issueFormItems()[2].HintText
		says := strings.Contains(hint, "not printed") && !strings.Contains(hint, "printed on the label")
		if lang == "zh" {
			says = strings.Contains(hint, "不印")
		}
		if !says {
			t.Errorf("%s: the Type hint says %q; want it to say the type is not printed", lang, hint)
		}
		override = nil
	}
}
