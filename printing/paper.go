package printing

import (
	"fmt"
	"math"
)

// A printer drawn on through a driver (the Windows spooler) is asked for the
// template's paper, and what it answers is checked before anything prints:
// a template whose labels reach past the paper the printer took is refused
// (an A4 sheet's bottom row on Letter paper would be cut off), and a paper
// that holds the labels but is not the template's gives a warning (the
// labels land where the template's sheet has them).

// Standard paper sizes a driver knows by number (Windows DMPAPER_*).
const (
	paperCustom = 0
	paperLetter = 1
	paperA4     = 9
)

// paperRequest is what a print asks the driver for: a standard size by
// number, or (paperCustom) a width and length in tenths of a millimetre.
type paperRequest struct {
	Size          int16
	Width, Length int16 // tenths of a mm, for paperCustom
}

// paperTolerance is how far (mm) a paper may differ from a size and still
// be that size: drivers round to their own units.
const paperTolerance = 1.0

func sameSize(a, b float64) bool { return math.Abs(a-b) <= paperTolerance }

// paperFor is the paper the template's sheets are printed on.
func paperFor(t Template) paperRequest {
	switch {
	case sameSize(t.PageWidth, 210) && sameSize(t.PageHeight, 297):
		return paperRequest{Size: paperA4}
	case sameSize(t.PageWidth, 215.9) && sameSize(t.PageHeight, 279.4):
		return paperRequest{Size: paperLetter}
	}
	return paperRequest{Size: paperCustom, Width: int16(math.Round(t.PageWidth * 10)), Length: int16(math.Round(t.PageHeight * 10))}
}

// paperName names a paper of width × height mm for a clerk.
func paperName(width, height float64) string {
	switch {
	case sameSize(width, 210) && sameSize(height, 297):
		return "A4"
	case sameSize(width, 215.9) && sameSize(height, 279.4):
		return "Letter"
	}
	return fmt.Sprintf("%.1f × %.1f mm", width, height)
}

// labelsReach is how far right and down (mm, from the paper's corner) the
// template's labels reach, moved by the print's offsets.
func labelsReach(o Options) (right, bottom float64) {
	t := o.Template
	right = t.Left + float64(t.Columns-1)*t.PitchX + t.LabelWidth + o.OffsetX
	bottom = t.Top + float64(t.Rows-1)*t.PitchY + t.LabelHeight + o.OffsetY
	return right, bottom
}

// checkPaper judges the paper a printer took (width × height mm) for a
// print with options o: an error when the labels do not fit on it, a
// warning when they fit but it is not the template's paper.
func checkPaper(printer string, o Options, width, height float64) (warning string, err error) {
	t := o.Template
	want := paperName(t.PageWidth, t.PageHeight)
	got := paperName(width, height)
	right, bottom := labelsReach(o)
	if right > width+paperTolerance || bottom > height+paperTolerance {
		return "", fmt.Errorf("printer %s has %s paper, but template %s needs %s (its labels reach %.1f × %.1f mm): nothing was printed. "+
			"Set the printer's paper to %s in Printing preferences, or choose a template for %s sheets",
			printer, got, t.Name, want, right, bottom, want, got)
	}
	if !sameSize(width, t.PageWidth) || !sameSize(height, t.PageHeight) {
		return fmt.Sprintf("printer %s has %s paper, template %s is for %s: the labels are placed as on %s; load %s sheets or choose a template for %s",
			printer, got, t.Name, want, want, want, got), nil
	}
	return "", nil
}
