package printing

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/skip2/go-qrcode"

	"qrdesk/app"
)

// Label is what one label shows.
type Label struct {
	Code  app.Code
	Title string // optional, may be Chinese
	Ref   string // the batch's ref (an order, a route), printed where the template has room
	Raw   string // instead of a code: any QR content (the scanner test label)
}

// content is what the QR holds.
func (l Label) content() string {
	if l.Raw != "" {
		return l.Raw
	}
	return l.Code.String()
}

// textLines are the monospace lines under or beside the QR.
func (l Label) textLines() []string {
	if l.Raw == "" {
		return codeLines(l.Code)
	}
	var lines []string
	for s := l.Raw; s != ""; {
		n := min(len(s), 20)
		lines = append(lines, s[:n])
		s = s[n:]
	}
	return lines
}

// Text lines: sizes in points; 1 pt = 0.3528 mm.
const (
	ptMM        = 25.4 / 72
	maxFontPt   = 11.0
	minFontPt   = 5.0
	lineSpacing = 1.2
	monoEm      = 0.6 // Courier's advance width per character, in em
	// MinModuleMM is the smallest QR module that scanners at a pickup desk
	// read reliably.
	MinModuleMM = 0.33
	quietZone   = 4 // modules of white around the QR
)

// textLine is one line of text on a label, relative to the label's corner.
type textLine struct {
	Text   string
	X, Y   float64 // left end of the baseline, mm
	SizePt float64
	Mono   bool
}

// labelLayout places the QR and the text on one label.
type labelLayout struct {
	Matrix   [][]bool // dark modules, without quiet zone
	QRX, QRY float64  // top-left of the quiet zone, mm
	ModuleMM float64
	Lines    []textLine
}

// QRSide is the QR's width including its quiet zone.
func (l labelLayout) QRSide() float64 { return float64(len(l.Matrix)+2*quietZone) * l.ModuleMM }

// ECLevel maps L, M, Q, H to go-qrcode's levels.
func ECLevel(s string) (qrcode.RecoveryLevel, error) {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "L":
		return qrcode.Low, nil
	case "", "M":
		return qrcode.Medium, nil
	case "Q":
		return qrcode.High, nil
	case "H":
		return qrcode.Highest, nil
	}
	return 0, fmt.Errorf("error correction %q is not a level: use L, M, Q or H", s)
}

// codeLines splits a code for reading aloud and typing: the prefix/date/
// serial part, then the random part in groups of four, then key id and
// signature in groups of five and four.
func codeLines(c app.Code) []string {
	var lines []string
	s := c.String()
	tail := string(c.KeyID) + c.Signature
	if front := strings.TrimSuffix(s, "-"+c.Random+"-"+tail); front != s && front != "" {
		lines = append(lines, front)
	}
	r := c.Random
	lines = append(lines, r[0:4]+" "+r[4:8]+" "+r[8:12], tail[0:5]+" "+tail[5:])
	return lines
}

// textWidth is a line's width in mm: Courier for codes; about 0.6 em a
// character for plain ASCII (Helvetica); any other line measured in the
// chain fonts it is printed in (fonts.go).
func textWidth(s string, sizePt float64, mono bool) float64 {
	em := sizePt * ptMM
	if mono {
		return float64(utf8.RuneCountInString(s)) * monoEm * em
	}
	if isASCII(s) {
		return float64(len(s)) * 0.6 * em
	}
	return chainWidth(s) * em
}

// layout fits the QR and the text of l on template t: the QR as large as
// possible beside or above the text, text shrunk down to minFontPt. It fails
// when even the smallest text does not fit or the QR modules would be
// smaller than MinModuleMM. snapMM, when set, rounds the module down to
// whole printer dots.
func layout(t Template, l Label, ec qrcode.RecoveryLevel, snapMM float64) (labelLayout, error) {
	// The ref goes on where the template has room for it (text that fits
	// and a QR scanners read) and the template does not leave it off;
	// elsewhere the label is laid out without it, as it is when the ref
	// holds a character the fonts cannot print (a ref from before that
	// check, or from another desk): left off rather than printed as a box.
	if l.Ref != "" {
		if _, bad := Unprintable(l.Ref); bad {
			l.Ref = ""
		}
	}
	if l.Ref != "" {
		withRef := l
		l.Ref = ""
		if !t.NoRef {
			if lay, err := layoutLines(t, withRef, ec, snapMM); err == nil {
				return lay, nil
			}
		}
	}
	return layoutLines(t, l, ec, snapMM)
}

// layoutLines lays out l with all its lines (see layout).
func layoutLines(t Template, l Label, ec qrcode.RecoveryLevel, snapMM float64) (labelLayout, error) {
	if err := CheckPrintable("label title", l.Title); err != nil {
		return labelLayout{}, err
	}
	q, err := qrcode.New(l.content(), ec)
	if err != nil {
		return labelLayout{}, fmt.Errorf("cannot encode %s as a QR code: %w", l.content(), err)
	}
	q.DisableBorder = true
	matrix := q.Bitmap()
	modules := float64(len(matrix) + 2*quietZone)

	var lines []textLine
	if l.Title != "" {
		lines = append(lines, textLine{Text: l.Title})
	}
	if l.Ref != "" {
		lines = append(lines, textLine{Text: l.Ref})
	}
	for _, s := range l.textLines() {
		lines = append(lines, textLine{Text: s, Mono: true})
	}
	w, h := t.LabelWidth, t.LabelHeight
	pad := math.Min(math.Max(math.Min(w, h)*0.04, 0.8), 2.5)

	var best labelLayout
	for _, side := range []bool{true, false} {
		for size := maxFontPt; size >= minFontPt-1e-9; size -= 0.5 {
			lineH := size * ptMM * lineSpacing
			textH := lineH * float64(len(lines))
			var qrSide, textW, textX, textY float64
			if side {
				qrSide = math.Min(h-2*pad, w*0.62)
				textW = w - qrSide - 2*pad
				textX, textY = pad+qrSide, (h-textH)/2
				if textH > h-2*pad {
					continue
				}
			} else {
				if textH > 0.35*h {
					continue // under the QR, text may take a third of the label
				}
				qrSide = math.Min(w-2*pad, h-2*pad-textH)
				textW = w - 2*pad
				textX, textY = pad, pad+qrSide
			}
			if !linesFit(lines, size, textW) || qrSide <= 0 {
				continue
			}
			module := qrSide / modules
			if snapMM > 0 {
				module = math.Floor(module/snapMM) * snapMM
			}
			if module <= best.ModuleMM {
				break // smaller text only shrinks the QR from here on
			}
			cand := labelLayout{Matrix: matrix, ModuleMM: module}
			qrSide = module * modules
			if side {
				cand.QRX, cand.QRY = pad, (h-qrSide)/2
			} else {
				cand.QRX, cand.QRY = (w-qrSide)/2, pad
				textY = pad + qrSide
			}
			for i, ln := range lines {
				ln.SizePt = size
				ln.X = textX
				if !side {
					ln.X = (w - textWidth(ln.Text, size, ln.Mono)) / 2
				}
				ln.Y = textY + lineH*float64(i) + size*ptMM*0.85
				cand.Lines = append(cand.Lines, ln)
			}
			best = cand
			break
		}
	}
	if best.Matrix == nil {
		return labelLayout{}, fmt.Errorf("the text of %s does not fit a %g × %g mm label even at %g pt: use a larger label or a shorter title", l.content(), w, h, minFontPt)
	}
	if best.ModuleMM < MinModuleMM {
		return labelLayout{}, fmt.Errorf("on a %g × %g mm label the QR modules would be %.2f mm, below the %.2f mm scanners need: use a larger label, error correction L or a shorter prefix/title", w, h, best.ModuleMM, MinModuleMM)
	}
	return best, nil
}

func linesFit(lines []textLine, sizePt, width float64) bool {
	for _, ln := range lines {
		if textWidth(ln.Text, sizePt, ln.Mono) > width {
			return false
		}
	}
	return true
}

// darkRects calls fn for rectangles that together cover exactly the dark
// modules: horizontal runs, merged downwards while the rows below have the
// same run. Fewer, larger shapes keep the output small and leave no seams
// between neighbouring modules.
func darkRects(m [][]bool, fn func(row, col, w, h int)) {
	type run struct{ col, w int }
	done := make(map[[3]int]bool) // row, col, w of runs already drawn as part of a taller rectangle
	hasRun := func(row int, r run) bool {
		line := m[row]
		if r.col+r.w > len(line) || !line[r.col] || (r.col > 0 && line[r.col-1]) {
			return false
		}
		for c := r.col; c < r.col+r.w; c++ {
			if !line[c] {
				return false
			}
		}
		return r.col+r.w == len(line) || !line[r.col+r.w]
	}
	for row, line := range m {
		for c := 0; c < len(line); {
			if !line[c] {
				c++
				continue
			}
			r := run{col: c}
			for c < len(line) && line[c] {
				c++
			}
			r.w = c - r.col
			if done[[3]int{row, r.col, r.w}] {
				continue
			}
			h := 1
			for row+h < len(m) && hasRun(row+h, r) {
				done[[3]int{row + h, r.col, r.w}] = true
				h++
			}
			fn(row, r.col, r.w, h)
		}
	}
}
