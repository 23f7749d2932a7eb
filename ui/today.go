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
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/widget"

	"qrdesk/app"
)

const chartDays = 14

// todayScreen shows the day's figures, the last 14 days and a CSV export.
type todayScreen struct {
	env       *env
	figures   *widget.Label
	conflicts *widget.Label
	chart     *fyne.Container
	message   *widget.Label
	stats     app.Stats
	loads     latest
	content   fyne.CanvasObject
}

func newTodayScreen(e *env) *todayScreen {
	s := &todayScreen{env: e}
	s.figures = widget.NewLabel("")
	s.figures.TextStyle = fyne.TextStyle{Monospace: true}
	s.chart = container.NewGridWithColumns(chartDays)
	s.conflicts = widget.NewLabel("")
	s.conflicts.Wrapping = fyne.TextWrapWord
	s.message = widget.NewLabel("")
	export := widget.NewButton(T("Export CSV…"), s.askExport)
	refresh := widget.NewButton(T("Refresh"), s.refresh)
	closeDay := widget.NewButton(T("Close the day…"), func() { newCloseDayDialog(s.env, s.refresh).ask() })
	s.content = container.NewBorder(
		container.NewVBox(widget.NewLabelWithStyle(T("Today"), fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), s.figures,
			container.NewHBox(refresh, export, closeDay), s.message,
			widget.NewLabelWithStyle(T("Redeemed, last 14 days"), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})),
		container.NewVBox(widget.NewLabelWithStyle(T("Conflicts: codes redeemed at two desks while offline"), fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), s.conflicts),
		nil, nil, s.chart)
	return s
}

// refresh reloads the figures off the UI goroutine.
func (s *todayScreen) refresh() {
	n := s.loads.next()
	go func() {
		days, err := s.env.svc.History(context.Background(), chartDays)
		conflicts := conflictText(s.env.svc)
		fyne.Do(func() {
			s.conflicts.SetText(conflicts)
			if !s.loads.is(n) {
				return
			}
			if err != nil {
				s.message.SetText(app.ErrorMessage(err))
				return
			}
			s.show(days)
		})
	}()
}

func (s *todayScreen) show(days []app.Stats) {
	st := days[len(days)-1]
	refused := 0
	for _, n := range st.Refused {
		refused += n
	}
	text := fmt.Sprintf("%-14s %s\n%-14s %d\n%-14s %d\n%-14s %d\n%-14s %d\n%-14s %d\n%-14s %d\n",
		T("Date"), st.Date, T("Issued"), st.Issued, T("Printed"), st.Printed, T("Scans"), st.Scans,
		T("Redeemed"), st.Redeemed, T("Refused"), refused, T("Still unused"), st.Unused)
	for _, o := range app.RefusalOutcomes {
		text += fmt.Sprintf("  %-12s %d\n", outcomeTitle(o), st.Refused[o])
	}
	s.figures.SetText(text)
	most := 1
	for _, d := range days {
		most = max(most, d.Redeemed)
	}
	// Build the bars, then swap them in whole: a refresh never shows half a chart.
	bars := make([]fyne.CanvasObject, 0, len(days))
	for _, d := range days {
		bar := canvas.NewRectangle(colorRedeemed)
		frac := float32(d.Redeemed) / float32(most)
		bar.SetMinSize(fyne.NewSize(20, 200*frac))
		label := canvas.NewText(d.Date[5:], color.Gray{Y: 0x80})
		label.TextSize = 11
		count := canvas.NewText(fmt.Sprint(d.Redeemed), color.Gray{Y: 0x80})
		count.TextSize = 11
		bars = append(bars, container.NewVBox(layout.NewSpacer(), count, bar, label))
	}
	s.chart.Objects = bars
	s.chart.Refresh()
	s.stats = st
}

func (s *todayScreen) askExport() {
	d := dialog.NewFileSave(func(w fyne.URIWriteCloser, err error) {
		if err != nil || w == nil {
			return
		}
		path := w.URI().Path()
		w.Close()
		go func() {
			n, err := s.export(path)
			fyne.Do(func() {
				if err != nil {
					s.message.SetText(app.ErrorMessage(err))
					return
				}
				s.message.SetText(T("{{.Count}} codes written to {{.Path}}", map[string]any{"Count": n, "Path": path}))
			})
		}()
	}, s.env.win)
	d.SetFileName("qrdesk-" + app.Day(s.env.now()).Format("2006-01-02") + ".csv")
	d.SetFilter(storage.NewExtensionFileFilter([]string{".csv"}))
	d.Show()
}

// export writes today's codes with their status as CSV.
func (s *todayScreen) export(path string) (int, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	n, err := s.env.svc.Store.ExportCodes(context.Background(), app.SearchQuery{LabelDate: app.Day(s.env.now()).Format("2006-01-02")}, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// conflictText lists the conflicts the central server reported.
func conflictText(svc *app.Service) string {
	ss, ok := svc.Store.(app.SyncStore)
	if !ok {
		return ""
	}
	list, err := ss.Conflicts(context.Background())
	if err != nil {
		return app.ErrorMessage(err)
	}
	if len(list) == 0 {
		return T("No conflicts")
	}
	var b strings.Builder
	for _, k := range list {
		fmt.Fprintf(&b, "%s: %s %s (%s) / %s %s (%s)\n", k.Code, app.FormatTime(k.FirstAt), k.FirstStation, k.FirstOperator,
			app.FormatTime(k.SecondAt), k.SecondStation, k.SecondOperator)
	}
	return b.String()
}
