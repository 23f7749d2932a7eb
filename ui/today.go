package ui

import (
	"context"
	"fmt"
	"image/color"
	"os"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"qrdesk/app"
)

const chartDays = 14

// todayScreen shows the day's figures as large cards, redemptions hour by
// hour, the last 14 days, the conflicts and a CSV export. It scrolls, so a
// 1024 × 600 screen shows all of it.
type todayScreen struct {
	env       *env
	title     *widget.Label
	header    *fyne.Container        // the title and the buttons
	cards     map[string]*figureCard // by figure name (English)
	refused   map[app.Outcome]*figureCard
	hours     *fyne.Container
	conflicts *widget.Label
	allDesks  *widget.Label // every desk's figures, apart from this desk's own
	madeToday *widget.Label // the labels made today for any day, under the cards
	chart     *fyne.Container
	message   *widget.Label
	stats     app.Stats
	loads     latest
	content   fyne.CanvasObject
}

// todayFigures are the cards, in order.
// "Labels for today" and "Still unused" count the same labels: those of
// today's date this desk issued (on any day); the labels made today for
// any day are said on the line under the cards.
// "Scanned twice" is neither redeemed nor refused: a label scanned again a
// moment after it was redeemed here.
var todayFigures = []string{"Labels for today", "Printed", "Scans", "Redeemed", "Scanned twice", "Refused", "Still unused"}

func newTodayScreen(e *env) *todayScreen {
	s := &todayScreen{env: e, cards: map[string]*figureCard{}, refused: map[app.Outcome]*figureCard{}}
	s.title = widget.NewLabelWithStyle(T("Today"), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	cards := container.NewGridWrap(fyne.NewSize(150, 96))
	for _, name := range todayFigures {
		c := newFigureCard(T(name), 40)
		s.cards[name] = c
		cards.Add(c.box)
	}
	// The reasons in sentence case, as on the day's page, on cards wide
	// enough for the longest ("REFUSED BY THE S…" was cut at 150 px).
	refusals := container.NewGridWrap(fyne.NewSize(refusalCardWidth, 72))
	for _, o := range app.RefusalOutcomes {
		c := newFigureCard(refusalName(o), 26)
		s.refused[o] = c
		refusals.Add(c.box)
	}
	s.hours = container.NewGridWithColumns(24)
	s.chart = container.NewGridWithColumns(chartDays)
	s.conflicts = widget.NewLabel("")
	s.allDesks = widget.NewLabel("")
	s.madeToday = widget.NewLabel("")
	s.madeToday.Wrapping = fyne.TextWrapWord
	s.allDesks.Wrapping = fyne.TextWrapWord
	s.conflicts.Wrapping = fyne.TextWrapWord
	s.message = widget.NewLabel("")
	s.message.Wrapping = fyne.TextWrapWord
	export := newKeyButton(T("Export CSV"), s.exportCSV)
	refresh := newKeyButton(T("Refresh"), s.refresh)
	closeDay := newKeyButton(T("Close the day…"), func() { newCloseDayDialog(s.env, s.refresh).ask() })
	bold := func(text string) fyne.CanvasObject {
		return widget.NewLabelWithStyle(text, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	}
	s.header = container.NewHBox(s.title, refresh, export, closeDay)
	s.content = container.NewVScroll(container.NewVBox(
		s.header, s.message,
		bold(T("This desk")), cards, s.madeToday,
		bold(T("Refused, by reason")), refusals,
		bold(T("Redeemed per hour")), s.hours,
		bold(T("Redeemed, last 14 days")), s.chart,
		bold(T("Conflicts: codes redeemed at two desks while offline")), s.conflicts,
		s.allDesks))
	return s
}

const refusalCardWidth = 180

// figureCard is one figure: a large number over its name, on a tile.
type figureCard struct {
	value *canvas.Text
	label *widget.Label
	box   fyne.CanvasObject
}

func newFigureCard(name string, size float32) *figureCard {
	c := &figureCard{value: canvas.NewText("0", theme.Color(theme.ColorNameForeground))}
	c.value.TextSize = size
	c.value.TextStyle = fyne.TextStyle{Bold: true}
	c.value.Alignment = fyne.TextAlignCenter
	bg := canvas.NewRectangle(theme.Color(theme.ColorNameInputBackground))
	bg.CornerRadius = 6
	label := widget.NewLabelWithStyle(name, fyne.TextAlignCenter, fyne.TextStyle{})
	label.Truncation = fyne.TextTruncateEllipsis
	c.label = label
	c.box = container.NewStack(bg, container.NewVBox(c.value, label))
	return c
}

func (c *figureCard) set(n int) {
	c.value.Text = fmt.Sprint(n)
	c.value.Refresh()
}

// refresh reloads the figures off the UI goroutine.
func (s *todayScreen) refresh() {
	n := s.loads.next()
	s.env.background(func() {
		ctx := context.Background()
		days, err := s.env.svc.DailyFigures(ctx, chartDays)
		var hours []app.HourCount
		if err == nil {
			hours, err = s.env.svc.RedeemedByHour(ctx, "")
		}
		var today app.Stats
		if err == nil {
			today, err = s.env.svc.Stats(ctx, "")
		}
		conflicts := conflictText(s.env.svc)
		onUI(func() {
			s.conflicts.SetText(conflicts)
			if !s.loads.is(n) {
				return
			}
			if err != nil {
				s.message.SetText(app.ErrorMessage(err))
				return
			}
			s.show(days, hours)
			s.allDesks.SetText(allDesksText(today.AllDesks))
		})
	})
}

func (s *todayScreen) show(days []app.Stats, hours []app.HourCount) {
	st := days[len(days)-1]
	refused := 0
	for _, n := range st.Refused {
		refused += n
	}
	s.title.SetText(T("Today") + " " + st.Date)
	s.header.Refresh() // the longer title pushes the buttons along
	for name, n := range map[string]int{"Labels for today": st.ForDay, "Printed": st.Printed, "Scans": st.Scans,
		"Redeemed": st.Redeemed, "Scanned twice": st.JustScanned, "Refused": refused, "Still unused": st.Unused} {
		s.cards[name].set(n)
	}
	s.madeToday.SetText(T("Labels issued today, for any day: {{.Count}}. Redeemed counts the labels redeemed here today, whatever their day.", map[string]any{"Count": st.Issued}))
	for o, c := range s.refused {
		c.set(st.Refused[o])
	}
	// Build the bars, then swap them in whole: a refresh never shows half a chart.
	perHour := make([]int, len(hours))
	hourLabels := make([]string, len(hours))
	for i, h := range hours {
		perHour[i], hourLabels[i] = h.Redeemed, h.Start.Format("15")
	}
	s.hours.Objects = bars(perHour, hourLabels, 90)
	s.hours.Layout = layout.NewGridLayoutWithColumns(max(len(hours), 1))
	s.hours.Refresh()
	perDay := make([]int, len(days))
	dayLabels := make([]string, len(days))
	for i, d := range days {
		perDay[i], dayLabels[i] = d.Redeemed, d.Date[5:]
	}
	s.chart.Objects = bars(perDay, dayLabels, 120)
	s.chart.Refresh()
	s.stats = st
}

// bars draws one bar per value, as high as height for the largest, with
// the value above and the label under each bar.
func bars(values []int, labels []string, height float32) []fyne.CanvasObject {
	most := 1
	for _, v := range values {
		most = max(most, v)
	}
	out := make([]fyne.CanvasObject, 0, len(values))
	for i, v := range values {
		bar := canvas.NewRectangle(colorRedeemed)
		bar.SetMinSize(fyne.NewSize(8, height*float32(v)/float32(most)))
		label := canvas.NewText(labels[i], color.Gray{Y: 0x80})
		label.TextSize = 11
		label.Alignment = fyne.TextAlignCenter
		count := canvas.NewText(fmt.Sprint(v), color.Gray{Y: 0x80})
		count.TextSize = 11
		count.Alignment = fyne.TextAlignCenter
		if v == 0 {
			count.Text = ""
		}
		out = append(out, container.NewVBox(layout.NewSpacer(), count, bar, label))
	}
	return out
}

// exportCSV writes today's codes into the save folder and names the file;
// no file dialog, as for Save PDF.
func (s *todayScreen) exportCSV() {
	s.message.SetText(T("Saving…"))
	s.env.background(func() {
		path, n, err := s.exportToFolder()
		onUI(func() {
			if err != nil {
				s.message.SetText(T("Not saved: {{.Error}}", map[string]any{"Error": app.ErrorMessage(err)}))
				return
			}
			s.message.SetText(T("{{.Codes}} written to {{.Path}}", map[string]any{"Codes": codeCount(n), "Path": path}))
		})
	})
}

func (s *todayScreen) exportToFolder() (string, int, error) {
	dir, err := s.env.saveFolder()
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		return "", 0, fmt.Errorf("cannot make the folder for exports: %w", err)
	}
	path := freePath(dir, "qrdesk-"+app.FormatDate(s.env.svc.ClockNow(context.Background())), ".csv")
	n, err := s.export(path)
	return path, n, err
}

// export writes today's codes with their status as CSV.
func (s *todayScreen) export(path string) (int, error) {
	f, err := app.CreateCSV(path)
	if err != nil {
		return 0, err
	}
	today := app.FormatDate(s.env.svc.ClockNow(context.Background())) // the day Today shows (DailyFigures)
	n, err := s.env.svc.ExportCodes(context.Background(), app.SearchQuery{LabelDate: today}, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// conflictText lists the conflicts the central server reported.
func conflictText(svc *app.Service) string {
	list, err := svc.Conflicts(context.Background())
	if err != nil {
		return app.ErrorMessage(err)
	}
	if len(list) == 0 {
		return T("No conflicts")
	}
	var b strings.Builder
	for _, k := range list {
		codes, second := k.Code, ""
		if k.SecondCode != "" {
			// A label and its replacement, one entitlement: both named.
			codes, second = k.Code+" + "+k.SecondCode, k.SecondCode+" "
		}
		fmt.Fprintf(&b, "%s: %s %s (%s) / %s%s %s (%s)\n", codes, app.FormatTime(k.FirstAt), k.FirstStation, k.FirstOperator,
			second, app.FormatTime(k.SecondAt), k.SecondStation, k.SecondOperator)
	}
	return b.String()
}
