package web_test

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"qrdesk/app"
	"qrdesk/internal/testpg"
)

// TestTodayHeadlineCountsEveryRefusal: a morning at one desk. The server
// refuses one label shown twice (already used); the desk refuses ten scans
// on its own (labels it knew were used, a forged one) and reports them at
// its sync. The headline "Refused" is every refusal of the day, 11, and
// says how many the server and the desks decided; it said 1 (only the
// server's) while the table under it listed the desk's ten.
func TestTodayHeadlineCountsEveryRefusal(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		s := newSite(t, dbPath(t), false)
		desk := s.station(t, "Desk 1", "A")
		codes := s.issue(t, 3)
		s.upload(t, desk, codes)
		if o := s.redeem(t, desk, "first-use", codes[0], 0); o != "redeemed" {
			t.Fatalf("first use: %s", o)
		}
		if o := s.redeem(t, desk, "again-use", codes[0], 0); o != "already_used" {
			t.Fatalf("second use: %s", o)
		}
		day := app.FormatDate(app.Day(s.clock.Now()))
		report := app.DeskReport{Date: day, At: s.clock.Now().Unix(), RefusedHere: &app.DeskRefusals{AlreadyUsed: 8, Forged: 2}}
		if st := s.call(t, "POST", "/v1/status", desk, report, nil); st != 200 {
			t.Fatalf("report: %d", st)
		}
		v := s.visitor()
		v.signIn(t, "root", s.admin(t, "root"))
		_, _, body := v.get(t, "/")
		got := regexp.MustCompile(`id="total-refused">([^<]*)<`).FindStringSubmatch(body)
		if got == nil || got[1] != "11" {
			t.Fatalf("headline Refused %v, want 11 (1 by the server, 10 at the desk alone)", got)
		}
		split := regexp.MustCompile(`(?s)id="refused-split">(.*?)</span>`).FindStringSubmatch(body)
		if split == nil || !strings.Contains(split[1], "1 by the server") || !strings.Contains(split[1], "10 at the desks alone") {
			t.Fatalf("the headline's split %v", split)
		}
	})
}

// TestTodayTableFitsItsCardAt1366: a manager opens Today on a 1366 × 768
// screen, in English and in Chinese, at a deployment of two sites: the By
// site and By desk tables (up to twenty columns) stay inside their cards,
// as every other card's content does. By desk ran 218 px past its card.
//
// On SQLite only, as TestDashboardInChromium: the layout does not depend
// on the engine.
func TestTodayTableFitsItsCardAt1366(t *testing.T) {
	s := newSite(t, sqlitePath(t), false)
	w := newWarehouseDay(t, s)
	day := app.FormatDate(app.Day(s.clock.Now()))
	report := app.DeskReport{Date: day, PrintJobs: 3, LabelsPrinted: 80, Reprints: 1, At: s.clock.Now().Unix(),
		RefusedHere: &app.DeskRefusals{AlreadyUsed: 1200, Disabled: 3, Expired: 40, Unknown: 5, Forged: 17}}
	if st := s.call(t, "POST", "/v1/status", w.desk1, report, nil); st != 200 {
		t.Fatalf("report: %d", st)
	}
	// Two sites: the By desk table gains a Site column, and By site comes.
	if err := s.db.AddSite(context.Background(), "South warehouse", s.clock.Now().Unix()); err != nil {
		t.Fatal(err)
	}
	if err := s.db.SetStationSite(context.Background(), "Desk 3", "South warehouse"); err != nil {
		t.Fatal(err)
	}
	password := s.admin(t, "manager")
	ctx := chromium(t)
	browserStep(t, ctx, "sign in", chromedp.EmulateViewport(1366, 768),
		chromedp.Navigate(s.url+"/login"), chromedp.WaitVisible(chromedp.ID("login")),
		chromedp.SendKeys(chromedp.ID("name"), "manager"), chromedp.SendKeys(chromedp.ID("password"), password),
		chromedp.Submit(chromedp.ID("login")), chromedp.WaitNotPresent(chromedp.ID("login")))
	for _, lang := range []string{"en", "zh-Hans"} {
		if lang != "en" { // the switch is a form (POST)
			browserStep(t, ctx, "switch language", chromedp.Click(chromedp.CSS(".who .lang")), chromedp.WaitVisible(chromedp.CSS(`html[lang="`+lang+`"]`)))
		}
		browserStep(t, ctx, "open Today in "+lang, chromedp.Navigate(s.url+"/?pause=1"), chromedp.WaitVisible(chromedp.CSS(`html[lang="`+lang+`"] #by-desk`)))
		over := browserRun(t, ctx, "measure", chromedp.Evaluate[[]float64](`(() => {
			const out = [];
			for (const table of document.querySelectorAll('table.grid')) {
				const card = table.closest('.card').getBoundingClientRect();
				const r = table.getBoundingClientRect();
				out.push(r.right - card.right, window.innerWidth - document.documentElement.scrollWidth);
			}
			return out;
		})()`))
		if os.Getenv("QRDESK_DEBUG_WIDTHS") != "" {
			t.Logf("%s: table right minus card right, window minus page width: %v", lang, over)
			t.Log(browserRun(t, ctx, "widths", chromedp.Evaluate[string](`[...document.querySelectorAll('#by-desk thead tr:nth-child(2) th, #by-desk thead tr:first-child th')].map(c => c.textContent.trim() + '=' + Math.round(c.getBoundingClientRect().width)).join(', ')`)))
		}
		for i := 0; i < len(over); i += 2 {
			if over[i] > 0 || over[i+1] < 0 {
				t.Errorf("%s: table %d runs %.0f px past its card (the page %.0f px past the window)", lang, i/2, over[i], -over[i+1])
			}
		}
	}
}
