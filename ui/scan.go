package ui

import (
	"context"
	"image/color"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"qrdesk/app"
)

const (
	resultShownFor = 5 * time.Second // then the panel returns to "ready"
	recentScans    = 30
	inARowWithin   = 2 * time.Second // a scan this soon after a redemption may be the same label again
)

// scanEntry is the scan field. A keyboard-wedge scanner ends a code with
// Enter, Tab or LF; all three submit, and Tab never moves the focus away.
type scanEntry struct {
	widget.Entry
	onSubmit func(text, terminator string, took time.Duration)

	firstKey, lastKey time.Time // typing speed, for the scanner test
}

func newScanEntry(onSubmit func(text, terminator string, took time.Duration)) *scanEntry {
	e := &scanEntry{onSubmit: onSubmit}
	e.ExtendBaseWidget(e)
	e.TextStyle = fyne.TextStyle{Monospace: true}
	e.SetPlaceHolder(T("Scan a label or type its code, then Enter"))
	return e
}

// AcceptsTab keeps Tab in the field so it can submit.
func (e *scanEntry) AcceptsTab() bool { return true }

func (e *scanEntry) TypedKey(k *fyne.KeyEvent) {
	terminators := map[fyne.KeyName]string{fyne.KeyReturn: "\r", fyne.KeyEnter: "\r", fyne.KeyTab: "\t"}
	switch term, ok := terminators[k.Name]; {
	case ok:
		text, took := e.Text, e.lastKey.Sub(e.firstKey)
		e.SetText("")
		e.firstKey = time.Time{}
		e.onSubmit(text, term, took)
	default:
		e.Entry.TypedKey(k)
	}
}

// TypedRune treats a typed line feed like Enter.
func (e *scanEntry) TypedRune(r rune) {
	if r == '\n' || r == '\r' {
		e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
		return
	}
	now := time.Now()
	if e.firstKey.IsZero() {
		e.firstKey = now
	}
	e.lastKey = now
	e.Entry.TypedRune(r)
}

type scanRow struct {
	at      time.Time
	outcome app.Outcome
	code    string
}

// scanScreen is the pickup desk: one scan field that always has the focus,
// a result that fills the screen, the last scans and today's counters. It
// has no buttons and no dialogs, so nothing can block or steal a scan.
type scanScreen struct {
	env      *env
	shownFor time.Duration // how long a result stays (resultShownFor; tests on a loaded machine hold it)
	entry    *scanEntry
	panel    *canvas.Rectangle
	title    *canvas.Text
	label    *wrapText       // which label: serial and ref (a ref is up to 200 characters)
	detail   *wrapText       // why, where, by whom: wraps to the panel
	result   *fyne.Container // title, label, detail and note (resultLayout)
	note     *widget.Label   // longer text (the scanner test's advice), wraps
	counters *widget.Label
	list     *widget.List
	banner   *syncBanner
	conflict *conflictNotice // after a sync that brought a conflict
	content  fyne.CanvasObject

	mu        sync.Mutex // guards the fields below, touched by scans in flight
	recent    []scanRow
	redeemed  int
	refused   int
	lastOK    time.Time // when this window last redeemed a label
	shownGen  int
	idleTimer *time.Timer    // returns the panel to idle after shownFor (the latest result's)
	idleDue   sync.WaitGroup // idleTimer not yet run or stopped (stopIdleTimer waits for it)

	askBadge bool // a locked desk with nobody signed in: idle asks for a badge
	askFirst bool // and the desk never had a supervisor: idle says how to add one
	idleUp   bool // the panel shows idle (ready, or the badge prompt)
}

func newScanScreen(e *env) *scanScreen {
	s := &scanScreen{env: e, shownFor: resultShownFor}
	s.entry = newScanEntry(s.submit)
	s.panel = canvas.NewRectangle(colorIdle)
	s.title = canvas.NewText("", color.White)
	s.title.TextSize = 64
	s.title.TextStyle = fyne.TextStyle{Bold: true}
	s.title.Alignment = fyne.TextAlignCenter
	s.label = newWrapText(color.White)
	s.label.TextStyle = fyne.TextStyle{Monospace: true}
	s.detail = newWrapText(color.White)
	s.detail.TextSize = 24
	s.note = widget.NewLabel("")
	s.note.Wrapping = fyne.TextWrapWord
	s.note.Alignment = fyne.TextAlignCenter
	s.counters = widget.NewLabel("")
	s.counters.TextStyle = fyne.TextStyle{Bold: true}
	s.list = widget.NewList(
		func() int { s.mu.Lock(); defer s.mu.Unlock(); return len(s.recent) },
		newRecentRow,
		func(i widget.ListItemID, o fyne.CanvasObject) {
			s.mu.Lock()
			defer s.mu.Unlock()
			if i < len(s.recent) {
				showRecentRow(o, s.recent[i])
			}
		})
	s.result = container.New(&resultLayout{title: s.title, label: s.label, detail: s.detail}, s.title, s.label, s.detail, s.note)
	result := container.NewStack(s.panel, s.result)
	side := container.NewBorder(s.counters, nil, nil, nil, s.list)
	split := container.NewHSplit(result, side)
	split.Offset = 0.62 // the recent list fits the longest code (see recentCodeSize)
	s.conflict = newConflictNotice(e)
	s.banner = newSyncBanner(e)
	s.banner.conflict = s.conflict
	// The conflict bar comes mid-shift: under the scan field, which stays
	// where the picker's eye is (above it, it pushed the field 60 px down).
	s.content = container.NewBorder(container.NewVBox(s.banner.label, container.NewPadded(s.entry), s.conflict.box), nil, nil, nil, split)
	s.idle()
	s.loadCounters()
	return s
}

// submit redeems one scan off the UI goroutine; the field is already clear.
// The scanner test label is not a code: it gets a report instead.
func (s *scanScreen) submit(raw, terminator string, took time.Duration) {
	if strings.TrimSpace(raw) == "" {
		return
	}
	if app.IsScannerTest(raw) {
		r := app.AnalyzeScannerTest(raw+terminator, took)
		verdict := T("Scanner set up correctly")
		if !r.OK {
			verdict = T("Scanner needs attention")
		}
		s.paint(colorInactive, T("SCANNER TEST"), verdict)
		s.note.SetText(strings.Join(r.Advice, "\n"))
		return
	}
	if badge := app.ApplyScannerMap(raw, s.env.current().ScannerMap); s.env.signIn != nil && app.IsBadge(badge) {
		s.env.signIn.badgeScanned(s, badge) // an operator signs in (signin.go)
		return
	}
	s.mu.Lock()
	inARow := s.env.now().Sub(s.lastOK) < inARowWithin
	s.mu.Unlock()
	s.env.background(func() {
		if s.env.signIn.needed(context.Background()) {
			onUI(s.signInFirst)
			return
		}
		// The service decides whether it is that label again (app.JustScanned).
		v, err := s.env.svc.RedeemScan(context.Background(), raw, s.env.operator(), inARow)
		var rec *app.CodeRecord
		if err == nil {
			rec = s.lookup(v)
		}
		onUI(func() { s.show(v, rec, err) })
	})
}

// signInFirst refuses a scan while nobody is signed in at a desk that has
// operators: every redemption names who handed the parcel over.
func (s *scanScreen) signInFirst() {
	s.paint(colorInactive, T("SIGN IN FIRST"), T("Scan your operator badge (or Sign in…): nothing was redeemed"))
	s.env.beep(false)
}

// lookup finds the scanned label's record, for its serial and ref; nil for
// what is no label of ours.
func (s *scanScreen) lookup(v app.Verdict) *app.CodeRecord {
	if v.Record != nil {
		return v.Record
	}
	switch v.Outcome {
	case app.OutcomeMalformed, app.OutcomeBadSignature, app.OutcomeUnknown, app.OutcomeBadge:
		return nil
	}
	recs, err := s.env.svc.Search(context.Background(), app.SearchQuery{Text: v.Code, Limit: 1})
	if err != nil || len(recs) == 0 {
		return nil
	}
	return &recs[0]
}

// labelLine names the label as printed: its serial (station letter and
// number) and ref, or the code's random part when it has no serial.
func labelLine(code string, rec *app.CodeRecord) string {
	if _, err := app.Parse(app.Normalize(code)); err != nil {
		return ""
	}
	line := T("Label {{.Serial}}", map[string]any{"Serial": serialName(code)})
	if rec != nil && rec.Ref != "" {
		line += "   " + T("Ref {{.Ref}}", map[string]any{"Ref": rec.Ref})
	}
	return line
}

func (s *scanScreen) show(v app.Verdict, rec *app.CodeRecord, err error) {
	now := s.env.now()
	if err != nil {
		// What to do in the clerk's language; the cause (from the
		// database, in English) goes under it for the supervisor.
		s.paint(colorRefused, T("NOT SAVED"), T("Nothing was redeemed: do not hand over; scan again or call the supervisor"))
		s.note.SetText(app.ErrorMessage(err))
		s.env.beep(false)
		return
	}
	s.mu.Lock()
	switch v.Outcome {
	case app.OutcomeRedeemed:
		s.redeemed++
		s.lastOK = now
	case app.OutcomeJustScanned: // the parcel went with the first scan: no refusal
	default:
		s.refused++
	}
	s.recent = append([]scanRow{{at: now, outcome: v.Outcome, code: v.Code}}, s.recent...)
	if len(s.recent) > recentScans {
		s.recent = s.recent[:recentScans]
	}
	s.mu.Unlock()
	s.list.Refresh()
	s.showCounters()

	defer s.setLabel(labelLine(v.Code, rec))
	switch {
	case v.Outcome == app.OutcomeJustScanned:
		s.showJustScanned(v.Code, rec)
		return // no second beep: nothing went wrong
	case v.Outcome == app.OutcomeRedeemed && v.Site != "":
		s.paint(colorRedeemed, outcomeTitle(v.Outcome), T("Hand over the parcel (label of site {{.Site}})", map[string]any{"Site": v.Site}))
	case v.Outcome == app.OutcomeRedeemed:
		s.paint(colorRedeemed, outcomeTitle(v.Outcome), T("Hand over the parcel"))
	case v.Outcome == app.OutcomeUnknown && v.Site != "":
		// Offline, the deployment refuses other sites' labels.
		s.paint(colorRefused, outcomeTitle(v.Outcome), T("Label of site {{.Site}}: ask the supervisor", map[string]any{"Site": v.Site}))
	case v.Outcome == app.OutcomeAlreadyUsed && v.UsedCode != "":
		// Its entitlement was used: the label it replaces, or its replacement.
		s.paint(colorUsed, outcomeTitle(v.Outcome), T("Do not hand over: its replacement or original {{.Code}} was used {{.Time}} at {{.Station}} by {{.Operator}}",
			map[string]any{"Code": v.UsedCode, "Time": together(app.FormatTime(v.UsedAt)), "Station": together(v.UsedStation), "Operator": together(v.UsedOperator)}))
	case v.Outcome == app.OutcomeAlreadyUsed:
		s.paint(colorUsed, outcomeTitle(v.Outcome), T("Do not hand over: first used {{.Time}} at {{.Station}} by {{.Operator}}",
			map[string]any{"Time": together(app.FormatTime(v.UsedAt)), "Station": together(v.UsedStation), "Operator": together(v.UsedOperator)}))
	case v.Outcome == app.OutcomeExpired && v.ExpireAt == 0:
		// No expiry time of its own: a close of its day expired it.
		s.paint(colorVoid, outcomeTitle(v.Outcome), T("Do not hand over: it expired when its day was closed"))
	case v.Outcome == app.OutcomeExpired:
		s.paint(colorVoid, outcomeTitle(v.Outcome), T("Do not hand over: it expired {{.Time}}", map[string]any{"Time": app.FormatTime(v.ExpireAt)}))
	case v.Outcome == app.OutcomeDisabled:
		s.paint(colorVoid, outcomeTitle(v.Outcome), T("Do not hand over. Reason: {{.Reason}}", map[string]any{"Reason": v.DisabledReason}))
	case v.Outcome == app.OutcomeServerRefused:
		// The server's reason (in English) under the hint, as an error's.
		s.paint(colorRefused, outcomeTitle(v.Outcome), outcomeHint(v.Outcome))
		s.note.SetText(v.Reason)
	default:
		s.paint(colorRefused, outcomeTitle(v.Outcome), outcomeHint(v.Outcome))
	}
	s.showOrder(v)
	s.env.beep(v.Outcome == app.OutcomeRedeemed)
}

// showJustScanned: blue, not ALREADY USED's amber: the label is used, but
// the parcel went with the scan a moment ago; nothing is wrong.
func (s *scanScreen) showJustScanned(code string, rec *app.CodeRecord) {
	s.paint(colorJustScanned, T("JUST SCANNED"), T("This label was redeemed a moment ago: the parcel is already handed over"))
	s.setLabel(labelLine(code, rec))
}

// setLabel names the label under the title; the panel is laid out again,
// as the name may take more lines than the last one.
func (s *scanScreen) setLabel(text string) {
	s.label.Text = text
	s.label.Refresh()
	s.result.Refresh()
}

// paint fills the result panel and returns it to "ready" after a while.
func (s *scanScreen) paint(c color.Color, title, detail string) {
	s.idleUp = false
	s.note.SetText("")
	s.panel.FillColor = c
	s.label.Text = ""
	s.label.Refresh()
	s.title.Text, s.title.FontSource = title, titleFont(title)
	s.detail.Text = detail
	s.panel.Refresh()
	s.title.Refresh()
	s.result.Refresh() // the detail's lines changed: lay the panel out again
	s.mu.Lock()
	defer s.mu.Unlock()
	s.shownGen++
	gen := s.shownGen
	if s.idleTimer != nil && s.idleTimer.Stop() {
		s.idleDue.Done() // the older result's return to idle never runs
	}
	s.idleDue.Add(1)
	s.idleTimer = time.AfterFunc(s.shownFor, func() {
		defer s.idleDue.Done()
		onUI(func() {
			s.mu.Lock()
			stale := gen != s.shownGen
			s.mu.Unlock()
			if !stale {
				s.idle()
			}
		})
	})
}

// stopIdleTimer cancels the pending return to idle, or waits until it has
// run: after it nothing of this screen's touches a widget on its own (the
// window closes; a test ends before the next one builds its window, since
// Fyne's widgets are not safe from two goroutines).
func (s *scanScreen) stopIdleTimer() {
	s.mu.Lock()
	if s.idleTimer != nil && s.idleTimer.Stop() {
		s.idleDue.Done()
	}
	s.idleTimer = nil
	s.mu.Unlock()
	s.idleDue.Wait()
}

// idle is the panel between scans: ready for a label, or, on a locked desk
// nobody is signed in at, asking for a badge (a label would only get SIGN
// IN FIRST).
func (s *scanScreen) idle() {
	if s.askBadge && s.askFirst {
		s.idleAs(T("ADD THE FIRST SUPERVISOR"), T("This desk has no supervisor yet, so no badge can sign in: Sign in… (Ctrl+L) adds the first one"))
		return
	}
	if s.askBadge {
		s.idleLocked()
		return
	}
	s.idleAs(T("READY"), T("Scan a label"))
}

func (s *scanScreen) idleLocked() {
	s.idleAs(T("SCAN YOUR BADGE"), T("Nobody is signed in: scan your operator badge to start"))
}

// setAskBadge says whether the desk is locked with nobody signed in, and
// whether it never had a supervisor (no badge could unlock it: the panel
// says how to add the first one); the idle panel follows at once.
func (s *scanScreen) setAskBadge(ask, first bool) {
	s.askBadge, s.askFirst = ask, first
	if s.idleUp {
		s.idle()
	}
}

func (s *scanScreen) idleAs(title, detail string) {
	s.idleUp = true
	s.note.SetText("")
	s.panel.FillColor = colorIdle
	s.label.Text = ""
	s.label.Refresh()
	s.title.Text, s.title.FontSource = title, titleFont(title)
	s.detail.Text = detail
	s.panel.Refresh()
	s.title.Refresh()
	s.result.Refresh() // the detail's lines changed: lay the panel out again
}

func (s *scanScreen) loadCounters() {
	s.env.background(func() {
		st, err := s.env.svc.Stats(context.Background(), "")
		if err != nil {
			return
		}
		refused := 0
		for _, n := range st.Refused {
			refused += n
		}
		onUI(func() {
			s.mu.Lock()
			s.redeemed, s.refused = st.Redeemed, refused
			s.mu.Unlock()
			s.showCounters()
		})
	})
}

func (s *scanScreen) showCounters() {
	s.mu.Lock()
	r, f := s.redeemed, s.refused
	s.mu.Unlock()
	s.counters.SetText(T("Today: {{.Redeemed}} redeemed, {{.Refused}} refused", map[string]any{"Redeemed": r, "Refused": f}))
}

func outcomeTitle(o app.Outcome) string {
	switch o {
	case app.OutcomeRedeemed:
		return T("REDEEMED")
	case app.OutcomeAlreadyUsed:
		return T("ALREADY USED")
	case app.OutcomeJustScanned:
		return T("JUST SCANNED")
	case app.OutcomeExpired:
		return T("EXPIRED")
	case app.OutcomeDisabled:
		return T("DISABLED")
	case app.OutcomeUnknown:
		return T("UNKNOWN")
	case app.OutcomeBadSignature:
		return T("FORGED")
	case app.OutcomeMalformed:
		return T("NOT A CODE")
	case app.OutcomeValid:
		return T("VALID")
	case app.OutcomeServerRefused:
		return T("REFUSED BY THE SERVER")
	case app.OutcomeBadge:
		return T("OPERATOR BADGE")
	}
	return string(o)
}

func outcomeHint(o app.Outcome) string {
	switch o {
	case app.OutcomeUnknown:
		return T("Signed correctly but not in this station's database")
	case app.OutcomeBadSignature:
		return T("The label was not issued here or was altered: do not hand over")
	case app.OutcomeMalformed:
		return T("This is not a qrdesk label: scan again")
	case app.OutcomeServerRefused:
		return T("Do not hand over: the server refused this scan (why below)")
	case app.OutcomeBadge:
		return T("This is an operator badge, not a label: do not hand over")
	}
	return ""
}
