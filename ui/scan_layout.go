package ui

import (
	"fmt"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// resultLayout stacks the scan result in the middle of its panel and sizes
// the text to the panel, so the verdict reads from a metre away on a small
// screen and grows on a large one.
type resultLayout struct {
	title         *canvas.Text
	label, detail *wrapText
}

// resultSizes are the text sizes for a panel: the title a sixth of the
// height (never below 44, so it reads from a metre), capped by the width.
func resultSizes(size fyne.Size) (title, label, detail float32) {
	title = min(max(size.Height/6, 44), size.Width/9, 180)
	return title, max(title*0.45, 22), max(title*0.38, 20)
}

func (l *resultLayout) Layout(objects []fyne.CanvasObject, size fyne.Size) {
	l.title.TextSize, l.label.TextSize, l.detail.TextSize = resultSizes(size)
	l.title.TextSize = fitWidth(l.title, size.Width)
	total := float32(0)
	for _, o := range objects {
		if o.Visible() {
			total += l.height(o, size.Width) + theme.Padding()
		}
	}
	y := max((size.Height-total)/2, 0)
	for _, o := range objects {
		if !o.Visible() {
			continue
		}
		h := l.height(o, size.Width)
		o.Move(fyne.NewPos(0, y))
		o.Resize(fyne.NewSize(size.Width, h))
		y += h + theme.Padding()
	}
}

// fitWidth is the size at which t's one line fits width: a verdict title
// stays one line ("REFUSED BY THE SERVER" is twice as wide as the panel at
// the size its height allows), shrunk rather than cut.
func fitWidth(t *canvas.Text, width float32) float32 {
	w := textSize(t.Text, t.TextSize, t.TextStyle, t.FontSource).Width
	if t.Text == "" || w <= width*0.96 {
		return t.TextSize
	}
	return t.TextSize * width * 0.96 / w
}

// height of one object at width w; wrapped labels grow with their lines.
func (l *resultLayout) height(o fyne.CanvasObject, w float32) float32 {
	if t, ok := o.(*canvas.Text); ok {
		if t.Text == "" {
			return 0
		}
		return textSize(t.Text, t.TextSize, t.TextStyle, t.FontSource).Height
	}
	if lb, ok := o.(*widget.Label); ok && lb.Text == "" {
		return 0
	}
	if t, ok := o.(*wrapText); ok && t.Text == "" {
		return 0
	}
	o.Resize(fyne.NewSize(w, o.MinSize().Height))
	return o.MinSize().Height
}

func (l *resultLayout) MinSize(objects []fyne.CanvasObject) fyne.Size {
	title, _, _ := resultSizes(fyne.NewSize(0, 0))
	return fyne.NewSize(200, title*3)
}

// A row of the recent scans: the time and verdict on one line, the whole
// code under it in a small monospace font so even the longest code fits.
func newRecentRow() fyne.CanvasObject {
	head := widget.NewLabel("00:00:00  ALREADY USED")
	code := canvas.NewText("", theme.Color(theme.ColorNameForeground))
	code.TextStyle = fyne.TextStyle{Monospace: true}
	code.TextSize = recentCodeSize
	return container.NewVBox(head, container.NewPadded(code))
}

// recentCodeSize fits the longest code (6-letter prefix, 8-digit serial:
// 46 characters, 331 px) in the scan list: 38 % of a 1024 px window.
const recentCodeSize = 12

func showRecentRow(o fyne.CanvasObject, r scanRow) {
	box := o.(*fyne.Container)
	box.Objects[0].(*widget.Label).SetText(fmt.Sprintf("%s  %s", r.at.Format(time.TimeOnly), outcomeTitle(r.outcome)))
	code := box.Objects[1].(*fyne.Container).Objects[0].(*canvas.Text)
	code.Text = r.code
	code.Refresh()
}
