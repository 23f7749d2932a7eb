package ui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"

	"qrdesk/app"
	"qrdesk/internal/testclock"
	"qrdesk/store"
)

type recorder struct {
	mu    sync.Mutex
	plays []bool
}

func (r *recorder) Play(ok bool) { r.mu.Lock(); r.plays = append(r.plays, ok); r.mu.Unlock() }

type harness struct {
	ui    *mainUI
	db    *store.DB
	svc   *app.Service
	clock *testclock.Clock
	sound *recorder
	win   fyne.Window
}

// newHarness opens the whole window headless on a fresh database.
func newHarness(t testing.TB) *harness {
	t.Helper()
	a := test.NewTempApp(t)
	dir := t.TempDir()
	db, err := store.Open(context.Background(), filepath.Join(dir, "qrdesk.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	keys, err := app.LoadKeys(filepath.Join(dir, "qrdesk.key"), true)
	if err != nil {
		t.Fatal(err)
	}
	c := testclock.New(testclock.Base()) // 10:00 on the suite's day
	db.UseClock(c.Now)
	svc := app.NewService(db, keys, nil)
	svc.Now = c.Now
	if _, err := svc.UpdateSettings(context.Background(), map[string]string{"configured": "true", "operator": "li", "prefix": "WH"}, "test"); err != nil {
		t.Fatal(err)
	}
	h := &harness{db: db, svc: svc, clock: c, sound: &recorder{}}
	h.win = a.NewWindow("qrdesk")
	h.win.Resize(fyne.NewSize(1200, 800))
	h.ui = openUI(t, a, h.win, svc, Options{Screen: "scan", Player: h.sound, TemplateDir: dir})
	return h
}

// openUI builds a window's screens for a test and waits until their first
// loads are done; when the test ends it waits until nothing of the window
// runs on its own (mainUI.quiet), so no test's leftovers touch the next
// test's widgets.
func openUI(t testing.TB, a fyne.App, w fyne.Window, svc *app.Service, opts Options) *mainUI {
	t.Helper()
	ui, err := newMainUI(a, w, svc, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ui.quiet)
	settleUI(ui.env)
	return ui
}

func (h *harness) issue(t testing.TB, n int) []string {
	t.Helper()
	_, codes, err := h.svc.Issue(context.Background(), app.IssueRequest{Count: n})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, n)
	for i, c := range codes {
		out[i] = c.String()
	}
	return out
}

// waitFor runs the queued UI work and polls cond until it holds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		runQueuedUI()
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

func (h *harness) scanTitle() string { return h.ui.scan.title.Text }

// scan types a code into the scan field as a scanner would, ending with key.
func (h *harness) scan(t *testing.T, code string, key fyne.KeyName, wantTitle string) {
	t.Helper()
	before := h.ui.scan.shownGen
	fyne.DoAndWait(func() {
		test.Type(h.ui.scan.entry, code)
		h.ui.scan.entry.TypedKey(&fyne.KeyEvent{Name: key})
	})
	waitFor(t, "the result of "+code, func() bool { return h.ui.scan.shownGen != before || h.ui.scan.title.Text != T("READY") })
	waitFor(t, wantTitle, func() bool { return h.scanTitle() == wantTitle })
	h.settle() // the rest of the result (label, list, counters) is drawn
}

func TestScanScreenOutcomes(t *testing.T) {
	h := newHarness(t)
	codes := h.issue(t, 4)
	ctx := context.Background()
	h.svc.SetDisabled(ctx, codes[2], true, "label torn", "li")

	h.scan(t, codes[0], fyne.KeyReturn, "REDEEMED")
	if h.ui.scan.entry.Text != "" {
		t.Fatalf("scan field not cleared: %q", h.ui.scan.entry.Text)
	}
	h.scan(t, codes[0], fyne.KeyReturn, "JUST SCANNED")
	h.clock.Advance(3 * time.Second)
	h.scan(t, codes[0], fyne.KeyTab, "ALREADY USED")
	if d := strings.ReplaceAll(h.ui.scan.detail.Text, "\u00a0", " "); !strings.Contains(d, "li") || !strings.Contains(d, "Station A") {
		t.Fatalf("already used detail %q does not say where and by whom", d)
	}
	h.scan(t, codes[2], fyne.KeyEnter, "DISABLED")
	if !strings.Contains(h.ui.scan.detail.Text, "label torn") {
		t.Fatalf("disabled detail %q lacks the reason", h.ui.scan.detail.Text)
	}
	forged := codes[1][:len(codes[1])-1] + map[bool]string{true: "2", false: "3"}[codes[1][len(codes[1])-1] != '2']
	h.scan(t, forged, fyne.KeyReturn, "FORGED")
	h.scan(t, "hello world", fyne.KeyReturn, "NOT A CODE")
	// Line feed from the scanner submits too.
	before := h.ui.scan.shownGen
	fyne.DoAndWait(func() { test.Type(h.ui.scan.entry, strings.ToLower(codes[3])+"\n") })
	waitFor(t, "LF submit", func() bool { return h.ui.scan.shownGen != before && h.scanTitle() == "REDEEMED" })

	st, _ := h.svc.Stats(ctx, "")
	if st.Redeemed != 2 || st.Scans != 7 || st.Refused[app.OutcomeBadSignature] != 1 {
		t.Fatalf("stats after the scans: %+v", st)
	}
	waitFor(t, "counters", func() bool { return strings.Contains(h.ui.scan.counters.Text, "2 redeemed, 4 refused") })
	h.sound.mu.Lock()
	defer h.sound.mu.Unlock()
	if len(h.sound.plays) != 6 || !h.sound.plays[0] || h.sound.plays[1] {
		t.Fatalf("sounds %v: want one per scan except the just-scanned repeat, accepted first", h.sound.plays)
	}
}

func TestFocusGrabberRoutesTyping(t *testing.T) {
	h := newHarness(t)
	codes := h.issue(t, 1)
	c := h.win.Canvas()
	fyne.DoAndWait(func() {
		c.Unfocus()
		test.TypeOnCanvas(c, codes[0])
		c.OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyReturn})
	})
	waitFor(t, "redeemed via the window", func() bool { return h.scanTitle() == "REDEEMED" })
	if c.Focused() != h.ui.scan.entry {
		t.Fatal("the scan field did not take the focus back")
	}
	// On another screen, typing is left alone.
	fyne.DoAndWait(func() {
		h.ui.show("today")
		c.Unfocus()
		test.TypeOnCanvas(c, "ABC")
	})
	if h.ui.scan.entry.Text != "" {
		t.Fatalf("typing on the Today screen reached the scan field: %q", h.ui.scan.entry.Text)
	}
}

func TestIssueAndPrint(t *testing.T) {
	h := newHarness(t)
	s := h.ui.issue
	fyne.DoAndWait(func() {
		h.ui.show("issue")
		s.count.SetText("0")
	})
	fyne.DoAndWait(func() { test.Tap(s.issueBtn) })
	if !strings.Contains(s.status.Text, "1 to 1,000,000") {
		t.Fatalf("count 0: status %q", s.status.Text)
	}
	fyne.DoAndWait(func() {
		s.count.SetText("9000")
		s.ref.SetText("ORDER-9")
		test.Tap(s.issueBtn)
	})
	// 9000 is over the daily quantity (100): Enter answers the question.
	waitFor(t, "the daily quantity question", func() bool { return h.win.Canvas().Overlays().Top() != nil })
	keyboard{h.win}.press(fyne.KeyReturn)
	waitFor(t, "the batch", func() bool { return strings.Contains(s.status.Text, "Batch 1: 9000 codes") })
	n, _ := h.svc.Search(context.Background(), app.SearchQuery{Text: "ORDER-9", Limit: 10000})
	if len(n) != 9000 {
		t.Fatalf("search by ref found %d", len(n))
	}
	waitFor(t, "the preview", func() bool { return s.preview.Image != nil })

	fakeLP(t)
	o, err := s.printOptions()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := s.runPrint(context.Background(), o, 1, nil, false, "Office"); err != nil {
		t.Fatal(err)
	}
	_, _, _, err = s.runPrint(context.Background(), o, 1, nil, false, "Office")
	if app.KindOf(err) != app.KindConflict {
		t.Fatalf("printing again without confirmation: %v", err)
	}
	if _, _, _, err := s.runPrint(context.Background(), o, 1, nil, true, "Office"); err != nil {
		t.Fatalf("confirmed reprint: %v", err)
	}
}

func TestCodesSearchDisableEnable(t *testing.T) {
	h := newHarness(t)
	codes := h.issue(t, 30)
	s := h.ui.codes
	c, _ := app.Parse(codes[7])
	fyne.DoAndWait(func() {
		h.ui.show("codes")
		s.query.SetText(c.Random[3:9])
		s.search(0)
	})
	h.settle()
	if len(s.rows) != 1 || s.current == nil {
		t.Fatalf("search by part of a code: %d rows, the single hit not shown", len(s.rows))
	}
	fyne.DoAndWait(func() { test.Tap(s.disableBtn) })
	if !strings.Contains(s.message.Text, "reason") {
		t.Fatalf("disable without reason: %q", s.message.Text)
	}
	fyne.DoAndWait(func() {
		s.reason.SetText("customer cancelled")
		test.Tap(s.disableBtn)
	})
	h.settle()
	if s.current == nil || s.current.Status != app.StatusDisabled || !strings.Contains(s.history.Text, "Disabled") {
		t.Fatalf("after Disable: %v, history %q", s.current, s.history.Text)
	}
	if v, _ := h.svc.Check(context.Background(), codes[7]); v.Outcome != app.OutcomeDisabled {
		t.Fatalf("after disable: %s", v.Outcome)
	}
	fyne.DoAndWait(func() { test.Tap(s.enableBtn) })
	h.settle()
	if s.current.Status != app.StatusUnused {
		t.Fatalf("after Enable: %s", s.current.Status)
	}

	fyne.DoAndWait(func() {
		s.query.SetText("")
		s.search(0)
	})
	waitFor(t, "all codes", func() bool { return len(s.rows) == 30 })
	h.issue(t, 5)
	fyne.DoAndWait(func() {
		s.batch.SetText("2")
		s.search(0)
	})
	waitFor(t, "batch 2 only", func() bool { return len(s.rows) == 5 })
	fyne.DoAndWait(func() {
		s.batch.SetText("two")
		s.search(0)
	})
	if !strings.Contains(s.message.Text, "batch number") {
		t.Fatalf("batch 'two': %q", s.message.Text)
	}
}

func TestSettingsValidation(t *testing.T) {
	h := newHarness(t)
	s := h.ui.settings
	fyne.DoAndWait(func() {
		s.fields["prefix"].entry.SetText("W-1")
		s.saveAll()
	})
	if !strings.Contains(s.message.Text, "Not saved") || !strings.Contains(s.message.Text, "A–Z") {
		t.Fatalf("bad prefix: %q", s.message.Text)
	}
	if err := s.fields["prefix"].validate(); err == nil {
		t.Fatal("the prefix field does not show its error")
	}
	fyne.DoAndWait(func() {
		s.fields["prefix"].entry.SetText("DOCK")
		s.fields["offset_x"].entry.SetText("1.5")
		s.saveAll()
	})
	waitFor(t, "saved", func() bool { return s.message.Text == "Saved" })
	set, _ := h.db.LoadSettings(context.Background())
	if set.Prefix != "DOCK" || set.OffsetX != 1.5 {
		t.Fatalf("stored settings %+v", set)
	}
}

func TestTodayFigures(t *testing.T) {
	h := newHarness(t)
	// Yesterday: one label, redeemed in the last second of the day.
	y, m, d := testclock.Day().AddDate(0, 0, -1).Date()
	h.clock.Set(time.Date(y, m, d, 10, 0, 0, 0, time.Local))
	yesterday := h.issue(t, 1)
	h.clock.Set(time.Date(y, m, d, 23, 59, 59, 0, time.Local))
	h.svc.Redeem(context.Background(), yesterday[0], "li")
	h.clock.Set(testclock.Base())
	codes := h.issue(t, 3)
	h.svc.Redeem(context.Background(), codes[0], "li")
	s := h.ui.today
	fyne.DoAndWait(func() { h.ui.show("today") })
	h.settle()
	if s.stats.Date != testclock.Date(0) || s.stats.Issued != 3 || s.stats.Scans != 1 {
		t.Fatalf("today's figures %+v, want %s: 3 issued, 1 scan", s.stats, testclock.Date(0))
	}
	if len(s.chart.Objects) != chartDays {
		t.Fatalf("chart has %d bars, want %d", len(s.chart.Objects), chartDays)
	}
	bar := func(i int) string { // "MM-DD redeemed" of one bar
		o := s.chart.Objects[i].(*fyne.Container).Objects
		return o[3].(*canvas.Text).Text + " " + o[1].(*canvas.Text).Text
	}
	if got, want := bar(chartDays-1)+", "+bar(chartDays-2), testclock.Date(0)[5:]+" 1, "+testclock.Date(-1)[5:]+" 1"; got != want {
		t.Fatalf("the chart ends %q, want %q (today, then yesterday)", got, want)
	}
	path := filepath.Join(t.TempDir(), "today.csv")
	if n, err := s.export(path); err != nil || n != 3 {
		t.Fatalf("export: %d, %v", n, err)
	}
}

func TestFirstRunSetup(t *testing.T) {
	h := newHarness(t)
	h.svc.UpdateSettings(context.Background(), map[string]string{"configured": "false"}, "test")
	h.ui.env.reloadSettings()
	f := newSetupForm(h.ui.env)
	setup := 0
	for _, d := range app.SettingDefs {
		if d.Setup {
			setup++
		}
	}
	if len(f.items) != setup || setup < 8 {
		t.Fatalf("%d set-up questions, want the %d settings marked for set-up", len(f.items), setup)
	}
	for _, it := range f.items {
		if it.HintText == "" {
			t.Fatalf("set-up question %q has no explanation", it.Text)
		}
	}
	f.fields["station_id"].entry.SetText("7")
	if err := f.fields["station_id"].validate(); err == nil {
		t.Fatal("station id 7 accepted")
	}
	f.fields["station_id"].entry.SetText("C")
	f.fields["station_name"].entry.SetText("Dock 3")
	if err := f.apply(context.Background()); err != nil {
		t.Fatal(err)
	}
	set, _ := h.db.LoadSettings(context.Background())
	if !set.Configured || set.StationID != "C" || set.StationName != "Dock 3" {
		t.Fatalf("after set-up: %+v", set)
	}
}

func TestScanScreenScannerTest(t *testing.T) {
	h := newHarness(t)
	fyne.DoAndWait(func() {
		test.Type(h.ui.scan.entry, strings.ToLower(app.ScannerTestPayload))
		h.ui.scan.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyTab})
	})
	waitFor(t, "the scanner test report", func() bool { return h.scanTitle() == "SCANNER TEST" })
	if note := h.ui.scan.note.Text; !strings.Contains(note, "Tab") || !strings.Contains(note, "Caps Lock") {
		t.Fatalf("report %q does not name the terminator and Caps Lock", note)
	}
	if st, _ := h.svc.Stats(context.Background(), ""); st.Scans != 0 {
		t.Fatalf("the test label was logged as %d scans", st.Scans)
	}
}

func TestTodayCardsAndHours(t *testing.T) {
	h := newHarness(t)
	codes := h.issue(t, 4)
	h.svc.Redeem(context.Background(), codes[0], "li") // 10:00
	h.clock.Advance(90 * time.Minute)
	h.svc.Redeem(context.Background(), codes[1], "li") // 11:30
	h.clock.Advance(time.Minute)                       // not a double scan
	h.svc.Redeem(context.Background(), codes[1], "li") // refused: already used
	s := h.ui.today
	fyne.DoAndWait(func() { h.ui.show("today") })
	h.settle()
	for name, want := range map[string]string{"Labels for today": "4", "Scans": "3", "Redeemed": "2", "Refused": "1", "Still unused": "2"} {
		if got := s.cards[name].value.Text; got != want {
			t.Errorf("card %s shows %s, want %s", name, got, want)
		}
	}
	if got := s.refused[app.OutcomeAlreadyUsed].value.Text; got != "1" {
		t.Errorf("refused as already used: %s, want 1", got)
	}
	perHour := map[string]string{}
	for _, o := range s.hours.Objects {
		texts := o.(*fyne.Container).Objects
		perHour[texts[3].(*canvas.Text).Text] = texts[1].(*canvas.Text).Text
	}
	if len(s.hours.Objects) != 24 || perHour["10"] != "1" || perHour["11"] != "1" || perHour["09"] != "" {
		t.Fatalf("redeemed per hour %v (%d bars), want 1 at 10 and 1 at 11", perHour, len(s.hours.Objects))
	}
	// The title with its date does not run under the buttons beside it.
	title, button := s.header.Objects[0], s.header.Objects[1]
	if title.Position().X+title.MinSize().Width > button.Position().X {
		t.Fatalf("the title %q (%.0f px from %.0f) runs under Refresh at %.0f", s.title.Text, title.MinSize().Width, title.Position().X, button.Position().X)
	}
	// Export CSV writes into the save folder and names the file.
	h.ui.env.saveDir = t.TempDir()
	fyne.DoAndWait(s.exportCSV)
	h.settle()
	want := filepath.Join(h.ui.env.saveDir, "qrdesk-"+testclock.Date(0)+".csv")
	if _, err := os.Stat(want); err != nil || !strings.Contains(s.message.Text, "4 codes written to "+want) {
		t.Fatalf("export: %q, %v", s.message.Text, err)
	}
}
