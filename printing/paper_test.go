package printing

import (
	"strings"
	"testing"
)

// TestPaperForTheTemplate: a print asks the driver for the template's own
// paper: A4 and Letter by their numbers, a roll by its size.
func TestPaperForTheTemplate(t *testing.T) {
	for _, c := range []struct {
		template string
		want     paperRequest
	}{
		{"L7160", paperRequest{Size: paperA4}},
		{"L7651", paperRequest{Size: paperA4}},
		{"5160", paperRequest{Size: paperLetter}},
		{"roll-50x30", paperRequest{Size: paperCustom, Width: 500, Length: 300}},
	} {
		tmpl, err := FindTemplate("", c.template)
		if err != nil {
			t.Fatal(err)
		}
		if got := paperFor(tmpl); got != c.want {
			t.Errorf("%s: asks for %+v, want %+v", c.template, got, c.want)
		}
	}
}

// TestPaperThePrinterTookIsChecked: what the printer answers is judged
// before anything prints. An A4 sheet on Letter paper loses its bottom row
// (L7160 reaches 282.2 mm, Letter is 279.4 mm), a Letter sheet on A4 its
// right edge (5163 reaches 212.1 mm, A4 is 210): refused, naming both
// papers and what to do. A 50 × 30 mm roll template on a printer set to
// 60 × 40 mm labels fits but is not its paper: a warning. The template's
// own paper: neither.
func TestPaperThePrinterTookIsChecked(t *testing.T) {
	const a4W, a4H, letterW, letterH = 210.0, 297.0, 215.9, 279.4
	opts := func(name string) Options {
		tmpl, err := FindTemplate("", name)
		if err != nil {
			t.Fatal(err)
		}
		return Options{Template: tmpl}
	}

	_, err := checkPaper("Office", opts("L7160"), letterW, letterH)
	if err == nil {
		t.Fatal("an A4 template on Letter paper was not refused")
	}
	for _, want := range []string{"Office", "Letter paper", "L7160 needs A4", "282.2", "Printing preferences", "nothing was printed"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q does not say %q", err, want)
		}
	}

	// A calibration offset that pushes the last row off the paper is
	// refused too, even on the template's own paper.
	pushed := opts("L7160")
	pushed.OffsetY = 16
	if _, err := checkPaper("Office", pushed, a4W, a4H); err == nil {
		t.Error("labels pushed 16 mm down, past the bottom of A4, were not refused")
	}
	if _, err := checkPaper("Office", opts("5163"), a4W, a4H); err == nil || !strings.Contains(err.Error(), "212.1") {
		t.Errorf("a Letter template reaching 212.1 mm across on A4 paper: %v, want refused", err)
	}

	warning, err := checkPaper("Zebra", opts("roll-50x30"), 60, 40)
	if err != nil {
		t.Fatalf("a 50 × 30 mm label on a 60 × 40 mm roll was refused: %v", err)
	}
	for _, want := range []string{"60.0 × 40.0 mm paper", "roll-50x30 is for 50.0 × 30.0 mm"} {
		if !strings.Contains(warning, want) {
			t.Errorf("warning %q does not say %q", warning, want)
		}
	}

	// Drivers round: A4 given as 209.9 × 297.1 mm is A4.
	for _, c := range []struct {
		template string
		w, h     float64
	}{{"L7160", 209.9, 297.1}, {"5160", letterW, letterH}, {"roll-50x30", 50, 30}} {
		if warning, err := checkPaper("Office", opts(c.template), c.w, c.h); err != nil || warning != "" {
			t.Errorf("%s on %.1f × %.1f mm: warning %q, error %v; want neither", c.template, c.w, c.h, warning, err)
		}
	}
}
