package ui

import (
	"image/color"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/widget"
)

// wrapText is centred text of any size that wraps to the width it is
// given, at spaces (and inside a word wider than the whole line): the scan
// result's detail line, sized to its panel like the title, which a
// canvas.Text would draw past the panel's edges ("BADGE REFUSED" with the
// reason, "ALREADY USED" with where and by whom). Set Text and TextSize,
// then Refresh; its MinSize is the height of its lines at its width.
type wrapText struct {
	widget.BaseWidget
	Text      string
	TextSize  float32
	TextStyle fyne.TextStyle // the label's name is monospace
	Color     color.Color
	// BreakAfter are the characters after which a word may break too (a
	// code's dashes: it breaks between its groups, never inside one).
	BreakAfter string
	Leading    bool // lines start at the left edge instead of centred
}

func newWrapText(c color.Color) *wrapText {
	t := &wrapText{Color: c, TextSize: defaultWrapTextSize}
	t.ExtendBaseWidget(t)
	return t
}

// defaultWrapTextSize is a readable size until the layout sets one.
const defaultWrapTextSize = 14

func (t *wrapText) CreateRenderer() fyne.WidgetRenderer { return &wrapTextRenderer{t: t} }

// lines splits the text into lines no wider than width.
func (t *wrapText) lines(width float32) []string {
	if t.Text == "" {
		return nil
	}
	fits := func(s string) bool {
		return width <= 0 || fyne.MeasureText(s, t.TextSize, t.TextStyle).Width <= width
	}
	var out []string
	for _, para := range strings.Split(t.Text, "\n") {
		line := ""
		for _, whole := range strings.FieldsFunc(para, breaksLine) {
			for i, word := range t.pieces(whole) {
				next := word
				if line != "" && i == 0 {
					next = line + " " + word
				} else if line != "" {
					next = line + word // the rest of the same word
				}
				if fits(next) {
					line = next
					continue
				}
				if line != "" {
					out = append(out, line)
				}
				// A word wider than the line is cut where it no longer fits.
				for !fits(word) {
					r := []rune(word)
					n := len(r) - 1
					for n > 1 && !fits(string(r[:n])) {
						n--
					}
					out = append(out, string(r[:n]))
					word = string(r[n:])
				}
				line = word
			}
		}
		out = append(out, line)
	}
	return out
}

// pieces splits word after each of BreakAfter's characters ("WH-",
// "261205-", …); the whole word when there are none.
func (t *wrapText) pieces(word string) []string {
	if t.BreakAfter == "" {
		return []string{word}
	}
	var out []string
	start := 0
	for i, r := range word {
		if strings.ContainsRune(t.BreakAfter, r) {
			end := i + utf8.RuneLen(r)
			out = append(out, word[start:end])
			start = end
		}
	}
	if start < len(word) {
		out = append(out, word[start:])
	}
	return out
}

// breaksLine reports whether a line may break at r: any space but a
// no-break space (together).
func breaksLine(r rune) bool { return unicode.IsSpace(r) && r != noBreakSpace }

const noBreakSpace = '\u00a0'

// together keeps s on one line of a wrapped text: "Desk 1" and
// "2026-12-02 10:00" are one name, one time, never split after "Desk".
func together(s string) string { return strings.ReplaceAll(s, " ", string(noBreakSpace)) }

type wrapTextRenderer struct {
	t *wrapText
	// mu keeps one layout at a time: Fyne's test driver runs fyne.Do
	// inline on the calling goroutine, so a screen repainted from a
	// watcher lays this text out beside the test's own goroutine (a
	// panic once in make test); the real driver has one UI goroutine.
	mu    sync.Mutex
	texts []fyne.CanvasObject
}

func (r *wrapTextRenderer) lineHeight() float32 {
	return fyne.MeasureText("Mg", r.t.TextSize, r.t.TextStyle).Height
}

func (r *wrapTextRenderer) Layout(size fyne.Size) {
	r.mu.Lock()
	defer r.mu.Unlock()
	lines := r.t.lines(size.Width)
	for len(r.texts) < len(lines) {
		r.texts = append(r.texts, canvas.NewText("", r.t.Color))
	}
	r.texts = r.texts[:len(lines)]
	h := r.lineHeight()
	for i, line := range lines {
		c := r.texts[i].(*canvas.Text)
		c.Text, c.TextSize, c.TextStyle, c.Color, c.Alignment = line, r.t.TextSize, r.t.TextStyle, r.t.Color, fyne.TextAlignCenter
		if r.t.Leading {
			c.Alignment = fyne.TextAlignLeading
		}
		c.Move(fyne.NewPos(0, float32(i)*h))
		c.Resize(fyne.NewSize(size.Width, h))
		c.Refresh()
	}
}

func (r *wrapTextRenderer) MinSize() fyne.Size {
	return fyne.NewSize(0, float32(len(r.t.lines(r.t.Size().Width)))*r.lineHeight())
}

func (r *wrapTextRenderer) Refresh() { r.Layout(r.t.Size()) }
func (r *wrapTextRenderer) Objects() []fyne.CanvasObject {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]fyne.CanvasObject(nil), r.texts...)
}
func (r *wrapTextRenderer) Destroy() {}
