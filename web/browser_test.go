package web_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"image/png"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"qrdesk/app"
	"qrdesk/protocol"
)

// warehouseDay is a morning at three desks, made through the API as the
// desks make it: labels uploaded by Desk 1, redemptions at Desk 1 and
// Desk 2 over four hours, refusals, two conflicts; Desk 3 never connects.
type warehouseDay struct {
	desk1, desk2, desk3 string // tokens
	codes               []string
	next                int      // the next unused label
	conflicts           []string // labels redeemed offline at two desks
}

func newWarehouseDay(t *testing.T, s *site) *warehouseDay {
	t.Helper()
	s.clock.Advance(-3 * time.Hour) // 07:00
	w := &warehouseDay{desk1: s.station(t, "Desk 1", "A"), desk2: s.station(t, "Desk 2", "B"), desk3: s.station(t, "Desk 3", "C")}
	w.codes = s.issue(t, 80)
	s.upload(t, w.desk1, w.codes)
	for _, n := range []int{4, 9, 13, 7} { // redemptions in each hour, 07:00–11:00
		step := time.Hour / time.Duration(n+1)
		for j := 0; j < n; j++ {
			s.clock.Advance(step)
			if o := s.redeem(t, []string{w.desk1, w.desk2}[j%2], fmt.Sprintf("morning-%03d", w.next), w.label(), 0); o != "redeemed" {
				t.Fatalf("redemption %d: %s", w.next, o)
			}
		}
		s.clock.Advance(step)
	}
	// Two labels shown again at the other desk, one torn label disabled.
	for i := 0; i < 2; i++ {
		if o := s.redeem(t, w.desk2, fmt.Sprintf("again-%03d", i), w.codes[i], 0); o != "already_used" {
			t.Fatalf("a used label again: %s", o)
		}
	}
	torn := w.label()
	var res struct{ Results []protocol.Result }
	s.call(t, "POST", "/v1/events", w.desk1, map[string]any{"events": []protocol.Event{{EventID: "disable-torn", Kind: "disable", Code: torn, Operator: "li", At: s.clock.Now().Unix(), Reason: "torn"}}}, &res)
	if o := s.redeem(t, w.desk2, "torn-at-desk2", torn, 0); o != "disabled" {
		t.Fatalf("a disabled label: %s", o)
	}
	// The network was down: both desks handed out a parcel on one label.
	now := s.clock.Now().Unix()
	for i := 0; i < 2; i++ {
		code := w.label()
		s.redeem(t, w.desk2, fmt.Sprintf("offline-b-%d", i), code, now-600+int64(i)*60)
		if o := s.redeem(t, w.desk1, fmt.Sprintf("offline-a-%d", i), code, now-300+int64(i)*60); o != "conflict" {
			t.Fatalf("double use offline: %s", o)
		}
		w.conflicts = append(w.conflicts, code)
	}
	// Desks 1 and 2 follow the feed, Desk 3 never came.
	for _, tok := range []string{w.desk1, w.desk2} {
		if st := s.call(t, "GET", "/v1/changes?after=40", tok, nil, nil); st != 200 {
			t.Fatalf("feed: %d", st)
		}
	}
	return w
}

func (w *warehouseDay) label() string {
	w.next++
	return w.codes[w.next-1]
}

// chromium starts headless Chromium with a fresh profile and returns a tab.
func chromium(t *testing.T) context.Context {
	t.Helper()
	path := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		t.Fatal("headless Chromium is needed: 'bash scripts/install-deps.sh test' installs it (Debian package chromium)")
	}
	alloc, cancel := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path),
		chromedp.Flag("headless", "new"),
		chromedp.Flag("no-sandbox", true), // the tests run as root
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("lang", "en-US"),
		chromedp.WindowSize(1280, 900),
		chromedp.UserDataDir(t.TempDir()),
	)
	t.Cleanup(cancel)
	ctx, cancelTab := chromedp.NewContext(alloc)
	t.Cleanup(cancelTab)
	if err := chromedp.Do(ctx); err != nil { // starts the browser, with no timeout
		t.Fatalf("starting Chromium: %v", err)
	}
	return ctx
}

// stepTimeout bounds one step: generous, because the machine running the
// tests may be shared (a step takes well under a second alone).
const stepTimeout = 45 * time.Second

// browserStep runs actions with a time limit, failing the test with what
// and where the browser was.
func browserStep(t *testing.T, tab context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, stepTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("%s: %v%s", what, err, whereIs(tab))
	}
}

func browserRun[T any](t *testing.T, tab context.Context, what string, action chromedp.Action[T]) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, stepTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, action)
	if err != nil {
		t.Fatalf("%s: %v%s", what, err, whereIs(tab))
	}
	return v
}

// whereIs describes the page the browser shows, for a failure message.
func whereIs(tab context.Context) string {
	ctx, cancel := context.WithTimeout(tab, 5*time.Second)
	defer cancel()
	loc, _ := chromedp.Run(ctx, chromedp.Location())
	text, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText.slice(0, 600) : ""`))
	return fmt.Sprintf("\nthe browser is at %s, showing:\n%s", loc, text)
}

// screenshot saves the whole page as docs/screenshots/web-NAME.png when
// $QRDESK_SCREENSHOTS names that folder (make screenshots), else in a
// temporary folder; either way it must be a real picture.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("QRDESK_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	buf := browserRun(t, ctx, "screenshot "+name, chromedp.FullScreenshot(100))
	img, err := png.Decode(bytes.NewReader(buf))
	if err != nil || img.Bounds().Dx() < 1000 || img.Bounds().Dy() < 300 {
		t.Fatalf("screenshot %s: %v (%v)", name, err, img)
	}
	if err := os.WriteFile(filepath.Join(dir, "web-"+name+".png"), buf, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDashboardInChromium: a manager in real headless Chromium is refused
// without a session, signs in, watches a desk's redemption appear on
// Today, resolves a conflict with a note, looks a label up, exports the
// day as CSV, revokes a desk after confirming, reads the pages in Chinese
// and signs out.
//
// On SQLite only: the PostgreSQL run took 25 s more of make test under the
// race detector, and what differs by engine (the store's reads and writes,
// every page and action refused without a session) is tested on both by
// server.TestDashboardStore and TestWithoutSessionNoData.
func TestDashboardInChromium(t *testing.T) {
	s := newSite(t, sqlitePath(t), false)
	w := newWarehouseDay(t, s)
	day := app.Day(s.clock.Now())
	// Desk 1 reports what it printed at its sync; Desk 2 is too old to.
	report := app.DeskReport{Date: app.FormatDate(day), EventsWaiting: 2, PrintJobs: 3, LabelsPrinted: 80, Reprints: 1, At: s.clock.Now().Unix()}
	if st := s.call(t, "POST", "/v1/status", w.desk1, report, nil); st != 200 {
		t.Fatalf("report: %d", st)
	}
	password := s.admin(t, "manager")
	ctx := chromium(t)

	// Without a session: the sign-in page, never data.
	browserStep(t, ctx, "open Conflicts signed out", chromedp.Navigate(s.url+"/conflicts"), chromedp.WaitVisible(chromedp.ID("login")))
	if loc := browserRun(t, ctx, "location", chromedp.Location()); !strings.HasSuffix(loc, "/login?next=%2Fconflicts") {
		t.Fatalf("signed out, /conflicts went to %s", loc)
	}
	if html := browserRun(t, ctx, "page", chromedp.OuterHTML(chromedp.CSS("html"))); strings.Contains(html, w.conflicts[0]) || strings.Contains(html, "Desk 1") {
		t.Fatal("the sign-in page shows data")
	}
	browserStep(t, ctx, "wrong password",
		chromedp.SendKeys(chromedp.ID("name"), "manager"), chromedp.SendKeys(chromedp.ID("password"), "not-it"),
		chromedp.Submit(chromedp.ID("login")), chromedp.WaitVisible(chromedp.CSS(".msg.error")))
	if msg := browserRun(t, ctx, "message", chromedp.Text(chromedp.CSS(".msg.error"))); !strings.Contains(msg, "Wrong name or password") {
		t.Fatalf("wrong password: %q", msg)
	}
	screenshot(t, ctx, "login")

	// Sign in: back to the page asked for.
	browserStep(t, ctx, "sign in",
		chromedp.SendKeys(chromedp.ID("password"), password), // the page after a failure keeps the name, never the password
		chromedp.Submit(chromedp.ID("login")), chromedp.WaitVisible(chromedp.CSS(".conflict")))

	// Today: a redemption made by a desk appears by itself. The page is
	// read paused (it reloads itself every second in this test).
	browserStep(t, ctx, "open Today paused", chromedp.Navigate(s.url+"/?pause=1"), chromedp.WaitVisible(chromedp.ID("resume")))
	before := browserRun(t, ctx, "redeemed", chromedp.Text(chromedp.ID("total-redeemed")))
	if before != "35" {
		t.Fatalf("Today shows %s redeemed, want 35", before)
	}
	s.clock.Advance(5 * time.Minute) // 11:05
	if o := s.redeem(t, w.desk2, "watched-live", w.label(), 0); o != "redeemed" {
		t.Fatalf("redemption: %s", o)
	}
	browserStep(t, ctx, "resume updates", chromedp.Click(chromedp.ID("resume")), chromedp.WaitVisible(chromedp.ID("pause")))
	waitText(t, ctx, "#total-redeemed", "36")
	browserStep(t, ctx, "pause updates", chromedp.Click(chromedp.ID("pause")), chromedp.WaitVisible(chromedp.ID("resume")))
	rows := browserRun(t, ctx, "desk rows", chromedp.Evaluate[[]string](`[...document.querySelectorAll('#by-desk tbody tr, #by-desk tfoot tr')].map(r => [...r.cells].map(c => c.textContent.trim()).join('|'))`))
	if want := []string{"Desk 1|80|18|0|0|0|0|2|3|80|1|0|0|0|0|0", "Desk 2|0|18|2|1|0|0|0|–|–|–|–|–|–|–|–", "Total|80|36|2|1|0|0|2|3|80|1|0|0|0|0|0"}; strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Fatalf("by desk:\n%s\nwant\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
	if n := browserRun(t, ctx, "printed", chromedp.Text(chromedp.ID("total-printed"))); n != "80" {
		t.Fatalf("Today shows %s labels printed, want 80", n)
	}
	bars := browserRun(t, ctx, "chart", chromedp.Evaluate[int](`document.querySelectorAll('svg.chart rect.bar[height]:not([height="0"])').length`))
	if bars != 5 { // 07 to 11 h
		t.Fatalf("%d hours with redemptions in the chart, want 5", bars)
	}
	screenshot(t, ctx, "today")

	// The day before, by the date picker: nothing happened then.
	browserStep(t, ctx, "Today, the day before", chromedp.Click(chromedp.ID("prev-day")), chromedp.WaitVisible(chromedp.ID("next-day")))
	if h, n := browserRun(t, ctx, "heading", chromedp.Text(chromedp.CSS("h1"))), browserRun(t, ctx, "redeemed", chromedp.Text(chromedp.ID("total-redeemed"))); h != day.AddDate(0, 0, -1).Format("2006-01-02") || n != "0" {
		t.Fatalf("the day before: %q, %s redeemed", h, n)
	}
	browserStep(t, ctx, "back to today", chromedp.Navigate(s.url+"/?pause=1"), chromedp.WaitVisible(chromedp.ID("resume")))

	// CSV export of the day, fetched by the page as the link does.
	text := browserRun(t, ctx, "CSV", chromedp.Evaluate[string](`fetch(document.getElementById('export').href).then(r => r.text())`, chromedp.EvalAwaitPromise))
	recs, err := csv.NewReader(strings.NewReader(text)).ReadAll()
	if err != nil || len(recs) != 4 || recs[3][1] != "TOTAL" || recs[3][3] != "36" || recs[0][4] != "refused" {
		t.Fatalf("CSV %v:\n%s", err, text)
	}

	// Conflicts: both facts side by side, resolve one with a note.
	browserStep(t, ctx, "open Conflicts", chromedp.Navigate(s.url+"/conflicts"), chromedp.WaitVisible(chromedp.CSS(".conflict")))
	list, err := s.db.ConflictRecords(context.Background(), day.Unix(), day.AddDate(0, 0, 1).Unix())
	if err != nil || len(list) != 2 {
		t.Fatalf("conflicts %v %v", list, err)
	}
	card := fmt.Sprintf("#conflict-%d", list[0].ID)
	facts := browserRun(t, ctx, "facts", chromedp.Text(chromedp.CSS(card+" .facts")))
	if !strings.Contains(facts, "Desk 1") || !strings.Contains(facts, "Desk 2") || !strings.Contains(facts, "offline-a-0") || !strings.Contains(facts, "offline-b-0") {
		t.Fatalf("the two facts: %q", facts)
	}
	browserStep(t, ctx, "resolve without a note", chromedp.Click(chromedp.CSS(card+" button")), chromedp.WaitVisible(chromedp.CSS(".msg.error")))
	note := "Customer had two parcels; checked with Desk 2"
	browserStep(t, ctx, "resolve",
		chromedp.SendKeys(chromedp.CSS(card+` input[name="note"]`), note), chromedp.Click(chromedp.CSS(card+" button")),
		chromedp.WaitVisible(chromedp.CSS(".msg.notice")))
	if got := browserRun(t, ctx, "resolution", chromedp.Text(chromedp.CSS(card+" .resolutions"))); !strings.Contains(got, note) || !strings.Contains(got, "manager") {
		t.Fatalf("resolution shown: %q", got)
	}
	list, _ = s.db.ConflictRecords(context.Background(), day.Unix(), day.AddDate(0, 0, 1).Unix())
	if len(list[0].Resolutions) != 1 || list[0].Resolutions[0].Note != note || list[0].Resolutions[0].Admin != "manager" || list[1].Resolved() {
		t.Fatalf("stored: %+v", list)
	}
	screenshot(t, ctx, "conflicts")
	browserStep(t, ctx, "filter by day", chromedp.Click(chromedp.ID("prev-day")), chromedp.WaitVisible(chromedp.ID("next-day")))
	if n := browserRun(t, ctx, "conflicts the day before", chromedp.Evaluate[int](`document.querySelectorAll('.conflict').length`)); n != 0 {
		t.Fatalf("%d conflicts the day before", n)
	}
	if got := browserRun(t, ctx, "the day before", chromedp.Text(chromedp.CSS("main p.muted"))); !strings.HasPrefix(got, day.AddDate(0, 0, -1).Format("2006-01-02")+": 0 conflicts") {
		t.Fatalf("the day before: %q", got)
	}

	// Code lookup: typed as a person would, lower case.
	browserStep(t, ctx, "look up",
		chromedp.Navigate(s.url+"/code"), chromedp.SendKeys(chromedp.ID("code"), strings.ToLower(w.conflicts[0])),
		chromedp.Submit(chromedp.CSS("form.lookup")), chromedp.WaitVisible(chromedp.ID("history")))
	history := browserRun(t, ctx, "history", chromedp.Evaluate[[]string](`[...document.querySelectorAll('#history tbody tr')].map(r => r.cells[1].textContent + ' ' + r.cells[5].textContent)`))
	if strings.Join(history, ",") != "Desk 2 Redeemed,Desk 1 Conflict" {
		t.Fatalf("history %q", history)
	}
	if got := browserRun(t, ctx, "conflict resolution", chromedp.Text(chromedp.CSS("main"))); !strings.Contains(got, note) {
		t.Fatal("the label's page does not show the conflict's resolution")
	}
	screenshot(t, ctx, "code")

	// Desks (State is the fourth column, after Version): online, offline,
	// revoke after confirming. Desk 1 follows the
	// feed, Desk 2 just redeemed, Desk 3 never came.
	s.call(t, "GET", "/v1/changes?after=40", w.desk1, nil, nil)
	browserStep(t, ctx, "open Desks", chromedp.Navigate(s.url+"/desks"), chromedp.WaitVisible(chromedp.ID("desks")))
	states := browserRun(t, ctx, "states", chromedp.Evaluate[[]string](`[...document.querySelectorAll('#desks tbody tr')].map(r => r.cells[0].textContent + ' ' + r.cells[3].textContent.trim())`))
	if strings.Join(states, ",") != "Desk 1 Online,Desk 2 Online,Desk 3 Offline" {
		t.Fatalf("desk states %q", states)
	}
	screenshot(t, ctx, "desks")
	browserStep(t, ctx, "revoke", chromedp.Click(chromedp.CSS(`tr[data-desk="Desk 2"] a.btn`)), chromedp.WaitVisible(chromedp.ID("confirm-revoke")))
	if st := s.call(t, "GET", "/v1/changes", w.desk2, nil, nil); st != 200 {
		t.Fatalf("revoked before confirming: %d", st)
	}
	screenshot(t, ctx, "revoke")
	browserStep(t, ctx, "confirm", chromedp.Click(chromedp.ID("confirm-revoke")), chromedp.WaitVisible(chromedp.CSS(".msg.notice")))
	if st := s.call(t, "GET", "/v1/changes", w.desk2, nil, nil); st != 403 {
		t.Fatalf("Desk 2 after the revocation: %d, want 403", st)
	}
	if got := browserRun(t, ctx, "Desk 2", chromedp.Text(chromedp.CSS(`tr[data-desk="Desk 2"]`))); !strings.Contains(got, "Revoked") {
		t.Fatalf("Desk 2's row: %q", got)
	}

	// Chinese, by the switch.
	// The switch is a form (POST): wait for the page it brings back.
	browserStep(t, ctx, "switch to Chinese", chromedp.Click(chromedp.CSS(".who .lang")), chromedp.WaitVisible(chromedp.CSS(`html[lang="zh-Hans"] #desks`)))
	if lang := browserRun(t, ctx, "lang", chromedp.Evaluate[string](`document.documentElement.lang`)); lang != "zh-Hans" {
		t.Fatalf("lang %q after the switch", lang)
	}
	screenshot(t, ctx, "desks-zh")
	browserStep(t, ctx, "Today in Chinese", chromedp.Navigate(s.url+"/?pause=1"), chromedp.WaitVisible(chromedp.ID("resume")))
	if h := browserRun(t, ctx, "heading", chromedp.Text(chromedp.CSS("h1"))); h != "今日" {
		t.Fatalf("Today's heading in Chinese: %q", h)
	}
	screenshot(t, ctx, "today-zh")
	browserStep(t, ctx, "Conflicts in Chinese", chromedp.Navigate(s.url+"/conflicts"), chromedp.WaitVisible(chromedp.CSS(".conflict")))
	screenshot(t, ctx, "conflicts-zh")
	browserStep(t, ctx, "back to English", chromedp.Click(chromedp.CSS(".who .lang")), chromedp.WaitVisible(chromedp.CSS(`html[lang="en"] .conflict`)))

	// Sign out: the pages are closed again.
	browserStep(t, ctx, "sign out", chromedp.Click(chromedp.CSS(".who button.link")), chromedp.WaitVisible(chromedp.ID("login")))
	browserStep(t, ctx, "Today signed out", chromedp.Navigate(s.url+"/?date="+url.QueryEscape(day.Format("2006-01-02"))), chromedp.WaitVisible(chromedp.ID("login")))
	if html := browserRun(t, ctx, "page", chromedp.OuterHTML(chromedp.CSS("html"))); strings.Contains(html, "total-redeemed") || strings.Contains(html, "Desk 1") {
		t.Fatal("signed out, Today still shows data")
	}
}

// waitText waits until the element's text is want, while the page reloads
// itself: nothing here navigates.
func waitText(t *testing.T, ctx context.Context, sel, want string) {
	t.Helper()
	deadline := time.Now().Add(stepTimeout)
	expr := fmt.Sprintf(`(document.querySelector(%s) || {}).textContent || ""`, strconv.Quote(sel))
	var got string
	for time.Now().Before(deadline) {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		v, err := chromedp.Run(cctx, chromedp.Evaluate[string](expr))
		cancel()
		if err == nil {
			if got = v; got == want {
				return
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("%s shows %q, want %q: the page did not update itself", sel, got, want)
}
