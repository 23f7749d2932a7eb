package ui

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"qrdesk/app"
)

const codesPageSize = 100

// codesScreen searches codes page by page and shows one in detail, where it
// can be disabled (with a reason) or enabled.
type codesScreen struct {
	env         *env
	query, date *widget.Entry
	batch       *widget.Entry
	status      *widget.Select
	table       *widget.Table
	columns     *fitColumns
	detailBox   *fyne.Container
	pageLabel   *widget.Label
	prev, next  *keyButton
	code        *wrapText // the code shown in detail
	detail      *widget.Label
	history     *widget.Label
	reason      *widget.Entry
	reasonHelp  *widget.Label // what the reason is for with the picked label, wrapped under the field
	disableBtn  *keyButton
	enableBtn   *keyButton
	replaceBtn  *keyButton
	undoBtn     *keyButton
	message     *widget.Label
	rows        []app.CodeRecord
	page        int
	current     *app.CodeRecord
	loads       latest
	content     fyne.CanvasObject
}

var codeColumns = []string{"Code", "Status", "Batch", "Ref", "Printed", "Used"}

func newCodesScreen(e *env) *codesScreen {
	s := &codesScreen{env: e}
	s.query = widget.NewEntry()
	s.query.SetPlaceHolder(T("Code, part of a code, serial, or part of a ref or customer"))
	// A label scanned here (or a code typed and Enter) is looked up: the
	// single hit is selected and its detail shown; the text stays selected
	// so the next scan replaces it.
	s.query.OnSubmitted = func(string) {
		s.search(0)
		s.query.TypedShortcut(&fyne.ShortcutSelectAll{})
	}
	s.date = widget.NewEntry()
	s.date.SetPlaceHolder("YYYY-MM-DD")
	s.date.OnSubmitted = func(string) { s.search(0) }
	s.batch = widget.NewEntry()
	s.batch.SetPlaceHolder(T("Batch"))
	s.batch.OnSubmitted = func(string) { s.search(0) }
	// Each status in the clerk's language, as the Status column says it;
	// searchQuery maps the choice back by its place in app.Statuses.
	statuses := []string{T("any status")}
	for _, st := range app.Statuses {
		statuses = append(statuses, T(string(st)))
	}
	s.status = widget.NewSelect(statuses, nil)
	s.status.SetSelectedIndex(0)
	s.status.OnChanged = func(string) { s.search(0) }
	s.table = widget.NewTableWithHeaders(
		func() (int, int) { return len(s.rows), len(codeColumns) },
		func() fyne.CanvasObject {
			l := widget.NewLabel("")
			l.Truncation = fyne.TextTruncateEllipsis
			return l
		},
		func(id widget.TableCellID, o fyne.CanvasObject) {
			if id.Row < len(s.rows) {
				o.(*widget.Label).SetText(cellText(s.rows[id.Row], id.Col))
			}
		})
	s.table.UpdateHeader = func(id widget.TableCellID, o fyne.CanvasObject) {
		l := o.(*widget.Label)
		if id.Row < 0 && id.Col >= 0 {
			l.SetText(T(codeColumns[id.Col]))
		} else if id.Col < 0 && id.Row >= 0 {
			l.SetText(fmt.Sprint(s.page*codesPageSize + id.Row + 1))
		}
	}
	s.table.OnSelected = func(id widget.TableCellID) {
		if id.Row >= 0 && id.Row < len(s.rows) {
			s.showDetail(s.rows[id.Row])
		}
	}
	s.pageLabel = widget.NewLabel("")
	s.prev = newKeyButton(T("Previous"), func() { s.search(s.page - 1) })
	s.next = newKeyButton(T("Next"), func() { s.search(s.page + 1) })
	// The code on a line of its own that breaks only between its groups:
	// a label broke it inside one at 1024 px ("…AMXKC33" / "U9").
	s.code = newWrapText(theme.Color(theme.ColorNameForeground))
	s.code.TextSize, s.code.BreakAfter, s.code.Leading = theme.TextSize(), "-", true
	s.detail = widget.NewLabel(T("Pick a code to see its details"))
	s.detail.Wrapping = fyne.TextWrapWord
	s.history = widget.NewLabel("")
	s.history.Wrapping = fyne.TextWrapWord
	s.reason = widget.NewEntry()
	// The field says only "Reason": what it is for with the picked label is
	// said under it, wrapped (as a placeholder it was cut at 1024 × 600).
	s.reason.SetPlaceHolder(T("Reason"))
	s.reasonHelp = widget.NewLabel(T("Reason (required to disable)"))
	s.reasonHelp.Wrapping = fyne.TextWrapWord
	s.reasonHelp.SizeName = theme.SizeNameCaptionText
	// Enter does what the picked label's reason is for: disable an unused
	// one, undo a used one's redemption (asked first), enable a disabled one.
	s.reason.OnSubmitted = func(string) {
		switch {
		case !s.disableBtn.Disabled():
			s.setDisabled(true)
		case !s.undoBtn.Disabled():
			s.undo()
		case !s.enableBtn.Disabled():
			s.setDisabled(false)
		}
	}
	s.reason.OnChanged = func(text string) {
		if len([]rune(strings.TrimSpace(text))) >= 3 {
			s.clearReasonError()
		}
	}
	s.disableBtn = newKeyButton(T("Disable"), func() { s.setDisabled(true) })
	s.enableBtn = newKeyButton(T("Enable"), func() { s.setDisabled(false) })
	s.disableBtn.Disable()
	s.enableBtn.Disable()
	s.newCodeActionButtons()
	s.message = widget.NewLabel("")
	s.message.Wrapping = fyne.TextWrapWord

	filters := container.NewVBox(s.query, container.NewGridWithColumns(4, s.status, s.date, s.batch, newKeyButton(T("Search"), func() { s.search(0) })))
	// The page number between its buttons, a fixed width so a new number
	// never lays the buttons over it.
	s.pageLabel.Alignment = fyne.TextAlignCenter
	pager := container.NewHBox(s.prev, container.NewGridWrap(fyne.NewSize(110, s.prev.MinSize().Height), s.pageLabel), s.next)
	s.columns = &fitColumns{table: s.table, mins: codeColumnMins, shares: codeColumnShares}
	left := container.NewBorder(filters, pager, nil, nil, container.New(s.columns, s.table))
	codeInset := layout.NewCustomPaddedLayout(0, 0, theme.InnerPadding(), theme.InnerPadding()) // as a label insets its text
	s.detailBox = container.NewVBox(container.New(codeInset, s.code), s.detail, s.reason, s.reasonHelp, container.NewGridWithColumns(2, s.disableBtn, s.enableBtn, s.replaceBtn, s.undoBtn), s.message,
		widget.NewLabelWithStyle(T("History"), fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), s.history)
	right := container.NewVScroll(s.detailBox)
	split := container.NewHSplit(left, right)
	split.Offset = 0.68
	s.content = split
	return s
}

func cellText(r app.CodeRecord, col int) string {
	switch col {
	case 0:
		return r.Code
	case 1:
		return T(string(r.Status))
	case 2:
		return fmt.Sprint(r.BatchID)
	case 3:
		return r.Ref
	case 4:
		return fmt.Sprint(r.PrintCount)
	case 5:
		if r.UsedAt != 0 {
			return app.FormatTime(r.UsedAt) + " " + r.UsedStation
		}
	}
	return ""
}

func (s *codesScreen) searchQuery(page int) app.SearchQuery {
	q := app.SearchQuery{Text: strings.TrimSpace(s.query.Text), LabelDate: strings.TrimSpace(s.date.Text),
		Limit: codesPageSize, Offset: page * codesPageSize}
	if i := s.status.SelectedIndex(); i > 0 && i <= len(app.Statuses) {
		q.Status = app.Statuses[i-1]
	}
	q.BatchID, _ = strconv.ParseInt(strings.TrimSpace(s.batch.Text), 10, 64)
	return q
}

// search loads one page of results off the UI goroutine.
func (s *codesScreen) search(page int) {
	if page < 0 {
		return
	}
	q := s.searchQuery(page)
	if q.LabelDate != "" {
		if _, err := s.env.svc.ParseDay(q.LabelDate); err != nil {
			s.message.SetText(T("{{.Got}} is not a date: use YYYY-MM-DD, e.g. {{.Example}}",
				map[string]any{"Got": q.LabelDate, "Example": s.env.now().Format("2006-01-02")}))
			return
		}
	}
	if b := strings.TrimSpace(s.batch.Text); b != "" && q.BatchID <= 0 {
		s.message.SetText(T("Batch must be a batch number"))
		return
	}
	n := s.loads.next()
	s.env.background(func() {
		rows, err := s.env.svc.Search(context.Background(), q)
		onUI(func() {
			if !s.loads.is(n) {
				return
			}
			if err != nil {
				s.message.SetText(app.ErrorMessage(err))
				return
			}
			s.rows, s.page = rows, page
			s.table.UnselectAll()
			s.table.Refresh()
			s.pageLabel.SetText(T("Page {{.Page}}", map[string]any{"Page": page + 1}))
			if page == 0 {
				s.prev.Disable()
			} else {
				s.prev.Enable()
			}
			if len(rows) < codesPageSize {
				s.next.Disable()
			} else {
				s.next.Enable()
			}
			switch len(rows) {
			case 0:
				s.message.SetText(T("No codes found"))
			case 1:
				s.message.SetText("")
				s.table.Select(widget.TableCellID{Row: 0, Col: 0})
			default:
				s.message.SetText("")
			}
		})
	})
}

func (s *codesScreen) showDetail(r app.CodeRecord) {
	s.current = &r
	s.code.Text = r.Code
	s.code.Refresh()
	lines := []string{
		T("Status") + ": " + T(string(r.Status)),
		T("Batch") + fmt.Sprintf(": %d   ", r.BatchID) + T("Label date") + ": " + r.LabelDate,
		T("Created") + ": " + app.FormatTime(r.CreatedAt) + "   " + T("Expires") + ": " + expiryText(r.ExpireAt),
		T("Printed") + fmt.Sprintf(": %d", r.PrintCount),
	}
	// Type and ref each only when set: no empty "Type:" beside a ref.
	var kind []string
	if r.Type != "" {
		kind = append(kind, T("Type")+": "+r.Type)
	}
	if r.Ref != "" {
		kind = append(kind, T("Ref")+": "+r.Ref)
	}
	if len(kind) > 0 {
		lines = append(lines, strings.Join(kind, "   "))
	}
	if r.UsedAt != 0 {
		lines = append(lines, T("Used")+": "+app.FormatTime(r.UsedAt)+", "+r.UsedStation+", "+r.UsedOperator)
	}
	if r.DisabledReason != "" {
		lines = append(lines, T("Disabled")+": "+r.DisabledReason)
	}
	s.detail.SetText(strings.Join(lines, "\n"))
	s.reasonHelp.SetText(reasonHint(r.Status))
	s.clearReasonError()  // it was about the label picked before
	s.detailBox.Refresh() // the wrapped detail changed height: lay the panel out again
	if r.Status == app.StatusUnused {
		s.disableBtn.Enable()
	} else {
		s.disableBtn.Disable()
	}
	if r.Status == app.StatusDisabled {
		s.enableBtn.Enable()
	} else {
		s.enableBtn.Disable()
	}
	s.enableCodeActions(r)
	s.env.background(func() {
		events, err := s.env.svc.CodeHistory(context.Background(), r)
		onUI(func() {
			if err != nil {
				s.history.SetText(app.ErrorMessage(err))
				return
			}
			var b strings.Builder
			for _, ev := range events {
				b.WriteString(historyLine(ev) + "\n")
			}
			if b.Len() == 0 {
				b.WriteString(T("Never scanned"))
			}
			s.history.SetText(b.String())
			s.detailBox.Refresh()
		})
	})
}

// reasonHint says what the reason field is for with a label of this status.
func reasonHint(st app.Status) string {
	switch st {
	case app.StatusUnused:
		return T("Reason to disable or replace (at least 3 characters)")
	case app.StatusUsed:
		return T("Reason to undo the redemption (at least 3 characters)")
	case app.StatusDisabled:
		return T("Reason to enable it again (optional)")
	}
	return T("Reason (required to disable)")
}

// clearReasonError takes away "give a reason" once it no longer holds.
func (s *codesScreen) clearReasonError() {
	if s.message.Text == T("Give a reason of at least 3 characters") {
		s.message.SetText("")
	}
}

func expiryText(at int64) string {
	if at == 0 {
		return T("never")
	}
	return app.FormatTime(at)
}

func (s *codesScreen) setDisabled(disable bool) {
	if s.current == nil {
		return
	}
	code, reason := s.current.Code, strings.TrimSpace(s.reason.Text)
	if disable && len([]rune(reason)) < 3 {
		s.message.SetText(T("Give a reason of at least 3 characters"))
		return
	}
	what := T("Enable {{.Code}}", map[string]any{"Code": code})
	if disable {
		what = T("Disable {{.Code}}", map[string]any{"Code": code})
	}
	by, ok := s.env.supervisor(what, func() { s.setDisabled(disable) })
	if !ok {
		return
	}
	s.env.background(func() {
		rec, err := s.env.svc.SetDisabled(context.Background(), code, disable, reason, by)
		onUI(func() {
			if err != nil {
				s.message.SetText(app.ErrorMessage(err))
				return
			}
			s.reason.SetText("")
			s.message.SetText(T("Now {{.Status}}", map[string]any{"Status": T(string(rec.Status))}))
			for i := range s.rows {
				if s.rows[i].ID == rec.ID {
					s.rows[i] = rec
				}
			}
			s.table.Refresh()
			s.showDetail(rec)
		})
	})
}
