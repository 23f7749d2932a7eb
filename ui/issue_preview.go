package ui

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"strconv"
	"strings"
	"sync"

	xdraw "golang.org/x/image/draw"
	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

	"qrdesk/app"
	"qrdesk/printing"
)

// previewPxPerMM is the preview's scale: an A4 sheet is 630 × 891 px.
const previewPxPerMM = 3

// startPosition reads "Start at position": positions count from 1, as the
// clerk counts labels on a sheet; printing skips the ones before it.
func startPosition(text string, t printing.Template) (skip int, err error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return 0, nil
	}
	pos, err := strconv.Atoi(text)
	per := t.PerPage()
	if per == 1 && (err != nil || pos != 1) {
		return 0, userError(T("{{.Template}} is a roll with one label per page: leave the start position at 1", map[string]any{"Template": t.Name}))
	}
	if err != nil || pos < 1 || pos > per {
		return 0, userError(T("Start position {{.Got}} is not on a sheet of {{.PerPage}} labels: use 1 to {{.PerPage}}",
			map[string]any{"Got": text, "PerPage": per}))
	}
	return pos - 1, nil
}

// labelCache keeps the first sheets' labels of the previewed batch, so a
// new start position or template redraws without reading the batch again.
type labelCache struct {
	mu     sync.Mutex
	id     int64
	title  string
	labels []printing.Label
	loads  int // batch reads, for the test
}

// previewLabels is the most a preview needs: one sheet of the largest
// templates (a few hundred labels) whatever the batch size.
const previewLabels = 1000

func (c *labelCache) get(ctx context.Context, svc *app.Service, id int64, title string) ([]printing.Label, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.id == id && c.title == title && c.labels != nil {
		return c.labels, nil
	}
	recs, err := svc.Search(ctx, app.SearchQuery{BatchID: id, Limit: previewLabels, Oldest: true})
	if err != nil {
		return nil, err
	}
	labels, err := toLabels(recs, title)
	if err != nil {
		return nil, err
	}
	c.id, c.title, c.labels = id, title, labels
	c.loads++
	return labels, nil
}

// renderPreview draws the first sheet of the selected batch with its
// positions numbered, and says how many sheets the batch takes. Anything
// that stops the preview is said under it.
func (s *issueScreen) renderPreview() {
	if s.selected == nil || s.template.Selected == "" {
		return
	}
	o, err := s.printOptions()
	if err != nil {
		s.sheets.SetText(app.ErrorMessage(err))
		return
	}
	b := *s.selected
	title := s.env.current().LabelTitle
	n := s.previewLoad.next()
	var part *app.BatchPart
	if s.part != nil {
		p := *s.part
		part = &p
	}
	s.env.background(func() {
		var labels []printing.Label
		var recs []app.CodeRecord
		var err error
		if part != nil { // the labels to print again, as they will print
			recs, _, err = s.env.svc.SelectForPrint(context.Background(), app.PrintSelection{BatchID: b.ID, Part: part})
			if err == nil {
				labels, err = toLabels(recs[:min(len(recs), o.Template.PerPage())], title)
			}
		} else {
			labels, err = s.cache.get(context.Background(), s.env.svc, b.ID, title)
		}
		var img image.Image
		if err == nil {
			img, err = printing.Preview(labels[:min(len(labels), o.Template.PerPage())], o, previewPxPerMM)
		}
		if err == nil {
			img = numberSlots(img, o)
		}
		onUI(func() {
			if !s.previewLoad.is(n) {
				return
			}
			if f := s.reprint; f != nil && part != nil {
				f.message.SetText("")
				if err != nil {
					f.message.SetText(app.ErrorMessage(err))
				}
			}
			if err != nil {
				s.preview.Image = nil
				s.preview.Refresh()
				s.sheets.SetText(T("No preview: {{.Error}}", map[string]any{"Error": app.ErrorMessage(err)}))
				return
			}
			s.preview.Image = img
			s.preview.Refresh()
			if part != nil {
				s.sheets.SetText(partText(part, recs, o, b.Count))
				return
			}
			s.sheets.SetText(sheetText(o, b.Count, labels))
		})
	})
}

// sheetText: "Sheet 1 of 4: labels A0001 to A0020 at positions 5 to 24",
// naming the serials the first sheet holds (the preview's text is small).
func sheetText(o printing.Options, count int, labels []printing.Label) string {
	per := o.Template.PerPage()
	pages := printing.Pages(o.Template, o.Start, count)
	n := min(per-o.Start, count, len(labels))
	named := n > 0 && labels[0].Code.HasSerial() && labels[n-1].Code.HasSerial()
	serial := func(l printing.Label) string { return l.Code.Station + l.Code.SerialText() }
	if per == 1 {
		if named {
			return T("Label 1 of {{.Count}}: {{.Serial}}", map[string]any{"Count": count, "Serial": serial(labels[0])})
		}
		return T("Label 1 of {{.Count}}", map[string]any{"Count": count})
	}
	if named {
		return T("Sheet 1 of {{.Sheets}}: labels {{.FirstSerial}} to {{.LastSerial}} at positions {{.First}} to {{.Last}}",
			map[string]any{"Sheets": pages, "FirstSerial": serial(labels[0]), "LastSerial": serial(labels[n-1]), "First": o.Start + 1, "Last": o.Start + n})
	}
	return T("Sheet 1 of {{.Sheets}}: labels at positions {{.First}} to {{.Last}}",
		map[string]any{"Sheets": pages, "First": o.Start + 1, "Last": min(per, o.Start+count)})
}

// skippedColor fills the positions a print leaves blank.
var skippedColor = color.RGBA{225, 225, 225, 255}

// numberSlots writes each position's number (from 1) in its top-left
// corner and greys the positions the print leaves blank.
func numberSlots(img image.Image, o printing.Options) image.Image {
	out := image.NewRGBA(img.Bounds())
	draw.Draw(out, out.Bounds(), img, image.Point{}, draw.Src)
	t := o.Template
	px := func(mm float64) int { return int(mm * previewPxPerMM) }
	for pos := 0; pos < t.PerPage(); pos++ {
		x, y := t.LabelRect(pos)
		x, y = x+o.OffsetX, y+o.OffsetY
		r := image.Rect(px(x)+1, px(y)+1, px(x+t.LabelWidth)-1, px(y+t.LabelHeight)-1)
		if pos < o.Start {
			draw.Draw(out, r, image.NewUniform(skippedColor), image.Point{}, draw.Src)
		}
		drawNumber(out, r.Min.Add(image.Pt(4, 4)), pos+1)
	}
	return out
}

// drawNumber draws n at twice the size of the 7×13 fixed font, dark blue on
// a white box so it reads on a QR code too.
func drawNumber(dst *image.RGBA, at image.Point, n int) {
	text := fmt.Sprint(n)
	face := basicfont.Face7x13
	small := image.NewRGBA(image.Rect(0, 0, 7*len(text)+2, 15))
	draw.Draw(small, small.Bounds(), image.White, image.Point{}, draw.Src)
	d := font.Drawer{Dst: small, Src: image.NewUniform(color.RGBA{0x15, 0x4a, 0x9a, 0xff}), Face: face, Dot: fixed.P(1, 12)}
	d.DrawString(text)
	b := small.Bounds()
	xdraw.NearestNeighbor.Scale(dst, image.Rect(at.X, at.Y, at.X+2*b.Dx(), at.Y+2*b.Dy()), small, b, draw.Over, nil)
}
