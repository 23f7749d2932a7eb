package printing

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDayReportPrintsEveryScript: the close of the day's PDF names the
// desk and who redeemed in any script the label fonts hold (a German desk,
// pickers named in Greek, Cyrillic, Vietnamese and Chinese), and its text
// reads back as those names (pdftotext), as the labels' does
// (TestLabelPrintsEveryScript): not as empty boxes.
func TestDayReportPrintsEveryScript(t *testing.T) {
	needTools(t, "pdftotext")
	r := DayReport{
		Title:   "Day closed: 2026-12-05",
		Header:  []string{"Lager Süd 1 – Müller Straße 5", "closed by Jürgen Groß"},
		Created: time.Date(2026, 12, 5, 18, 0, 0, 0, time.UTC),
	}
	for _, s := range scriptRefs {
		r.Rows = append(r.Rows, ReportRow{Label: "by " + s.ref, Value: "3", Sub: true})
	}
	var buf bytes.Buffer
	if err := WriteDayReportPDF(&buf, r); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "day.pdf")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("pdftotext", path, "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(out)), " ")
	for _, want := range append([]string{"Lager Süd 1 – Müller Straße 5", "Jürgen Groß"}, func() (refs []string) {
		for _, s := range scriptRefs {
			refs = append(refs, s.ref)
		}
		return
	}()...) {
		if !strings.Contains(text, want) {
			t.Errorf("the day's PDF does not read %q:\n%s", want, text)
		}
	}
}
