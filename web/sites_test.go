package web_test

import (
	"context"
	"encoding/csv"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"qrdesk/app"
	"qrdesk/central"
	"qrdesk/internal/serverdbtest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// chain is a deployment of two sites: North (the upgraded 'main', Desk 1
// and Desk 2) and South (Desk 3), with a day of scans, a conflict on a
// label of each site, and Desk 3's report of what it printed.
type chain struct {
	*site
	north, south []string // labels uploaded by Desk 1 and Desk 3
	northSpare   string   // a label of Desk 1, not uploaded
	tokens       map[string]string
	conflicts    map[string]int64 // label → its conflict's id
}

func newChain(t *testing.T, path string) *chain {
	t.Helper()
	ctx := context.Background()
	s := newSite(t, path, false)
	c := &chain{site: s, tokens: map[string]string{}, conflicts: map[string]int64{}}
	if err := s.db.RenameSite(ctx, "main", "North"); err != nil {
		t.Fatal(err)
	}
	if err := s.db.AddSite(ctx, "South", s.clock.Now().Unix()); err != nil {
		t.Fatal(err)
	}
	for _, d := range []struct{ name, letter string }{{"Desk 1", "A"}, {"Desk 2", "B"}, {"Desk 3", "C"}} {
		c.tokens[d.name] = s.station(t, d.name, d.letter)
	}
	if err := s.db.SetStationSite(ctx, "Desk 3", "South"); err != nil {
		t.Fatal(err)
	}
	north := s.issueAt(t, "A", 6)
	c.north, c.northSpare = north[:5], north[5]
	c.south = s.issueAt(t, "C", 4)
	d1, d2, d3 := c.tokens["Desk 1"], c.tokens["Desk 2"], c.tokens["Desk 3"]
	s.upload(t, d1, c.north)
	s.upload(t, d3, c.south)
	now := s.clock.Now().Unix()
	for _, r := range []struct {
		token, id, code string
		offline         int64
		want            protocol.Outcome
	}{
		{d1, "n0-desk1", c.north[0], 0, "redeemed"},
		{d2, "n0-desk2", c.north[0], 0, "already_used"},
		{d3, "s0-desk3", c.south[0], 0, "redeemed"},
		{d3, "n1-desk3", c.north[1], 0, "redeemed"}, // a label of North at a desk of South
		// North's label n2 at both desks of North offline: a conflict.
		{d1, "n2-desk1", c.north[2], now - 120, "redeemed"},
		{d2, "n2-desk2", c.north[2], now - 90, "conflict"},
		// South's label s1 at Desk 3, and offline at Desk 1 of North.
		{d3, "s1-desk3", c.south[1], now - 100, "redeemed"},
		{d1, "s1-desk1", c.south[1], now - 60, "conflict"},
	} {
		if got := s.redeem(t, r.token, r.id, r.code, r.offline); got != r.want {
			t.Fatalf("%s: %s, want %s", r.id, got, r.want)
		}
	}
	if st := s.call(t, "POST", "/v1/status", d3, app.DeskReport{Date: app.FormatDate(s.clock.Now()), PrintJobs: 2, LabelsPrinted: 7, At: now,
		RefusedHere: &app.DeskRefusals{Forged: 1}}, nil); st != 200 {
		t.Fatalf("Desk 3's report: %d", st)
	}
	list, err := s.db.ConflictRecords(ctx, 0, math.MaxInt64)
	if err != nil || len(list) != 2 {
		t.Fatalf("conflicts %+v %v", list, err)
	}
	for _, k := range list {
		c.conflicts[k.Code] = k.ID
	}
	return c
}

// row is the text of a table row's cells (tags dropped, spaces folded).
func row(t *testing.T, body, attr string) string {
	t.Helper()
	m := regexp.MustCompile(`(?s)<tr ` + regexp.QuoteMeta(attr) + `>(.*?)</tr>`).FindStringSubmatch(body)
	if m == nil {
		return ""
	}
	cells := regexp.MustCompile(`(?s)<t[dh][^>]*>(.*?)</t[dh]>`).FindAllStringSubmatch(m[1], -1)
	var out []string
	for _, c := range cells {
		out = append(out, strings.TrimSpace(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(c[1], "")))
	}
	return strings.Join(out, " | ")
}

// tile is the number of a Today tile.
func tile(body, id string) string {
	m := regexp.MustCompile(`id="` + id + `">([^<]*)<`).FindStringSubmatch(body)
	if m == nil {
		return ""
	}
	return m[1]
}

// desksOn lists the desks a page's Desks or By desk table shows.
func desksOn(body string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`(?:data-desk="([^"]*)")|(?:<tr><td>(Desk [0-9])</td>)`).FindAllStringSubmatch(body, -1) {
		out = append(out, m[1]+m[2])
	}
	return out
}

// TestDashboardBySite: an administrator of every site sees Today's figures
// by site (a desk's under its own site, a conflict under its label's) and
// in total, and each page filtered by the site picker; Desks and
// Conflicts say each desk's and label's site; the CSV export follows the
// picker. A name no site has says so and shows every site.
func TestDashboardBySite(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		c := newChain(t, dbPath(t))
		v := c.visitor()
		if st, _, _ := v.signIn(t, "boss", c.admin(t, "boss")); st != http.StatusSeeOther {
			t.Fatalf("sign in: %d", st)
		}

		_, _, today := v.get(t, "/?pause=1")
		// Site, desks, issued, scanned, redeemed, already used, disabled,
		// expired, rejected, conflicts, labels printed, refused alone.
		for attr, want := range map[string]string{
			`data-site="North"`: "North | 2 | 5 | 5 | 2 | 1 | 0 | 0 | 0 | 2 | – | –",
			`data-site="South"`: "South | 1 | 4 | 4 | 3 | 0 | 0 | 0 | 0 | 0 | 7 | 1",
		} {
			if got := row(t, today, attr); got != want {
				t.Errorf("Today's row %s:\n got %q\nwant %q", attr, got, want)
			}
		}
		if got := []string{tile(today, "total-issued"), tile(today, "total-redeemed"), tile(today, "total-refused"), tile(today, "total-conflicts"), tile(today, "total-scanned")}; strings.Join(got, ",") != "9,5,2,2,9" {
			// Refused: the server's one and South's one refused alone.
			t.Errorf("Today's total: issued, redeemed, refused, conflicts, scanned %v, want 9,5,2,2,9", got)
		}
		if !strings.Contains(today, `<select name="site"`) || !strings.Contains(today, `<option value="">All sites</option>`) || strings.Contains(today, `id="sitename"`) {
			t.Error("Today of every site: no site picker, or a single site's name")
		}
		if got := desksOn(today); strings.Join(got, ",") != "Desk 1,Desk 2,Desk 3" || !strings.Contains(today, `<td class="site">South</td>`) {
			t.Errorf("Today's desks %v, with a site column", got)
		}

		_, _, south := v.get(t, "/?pause=1&site=south") // any case
		if got := desksOn(south); strings.Join(got, ",") != "Desk 3" || strings.Contains(south, `id="by-site"`) ||
			tile(south, "total-redeemed") != "3" || tile(south, "total-printed") != "7" || !strings.Contains(south, `<span class="sitename" id="sitename">Site South</span>`) ||
			!strings.Contains(south, `<option value="South" selected>South</option>`) {
			t.Errorf("Today of South: desks %v, redeemed %s, printed %s (want Desk 3 alone, 3, 7, no site table, South picked)", got, tile(south, "total-redeemed"), tile(south, "total-printed"))
		}
		// The day's links keep the site.
		if !strings.Contains(south, `href="/?date=`+app.FormatDate(c.clock.Now().AddDate(0, 0, -1))+`&amp;site=South" class="btn" id="prev-day"`) ||
			!strings.Contains(south, `href="/today.csv?date=`+app.FormatDate(c.clock.Now())+`&amp;site=South"`) || !strings.Contains(south, `href="/desks?site=South"`) {
			t.Error("Today of South: the previous day, the export or the menu loses the site")
		}
		_, _, north := v.get(t, "/?pause=1&site=North")
		// Desk 1's conflict on South's label is North's figure: it happened there.
		if got := desksOn(north); strings.Join(got, ",") != "Desk 1,Desk 2" || tile(north, "total-conflicts") != "2" || tile(north, "total-printed") != "–" {
			t.Errorf("Today of North: desks %v, conflicts %s, printed %s", got, tile(north, "total-conflicts"), tile(north, "total-printed"))
		}
		if st, _, nowhere := v.get(t, "/?site=Nowhere"); st != 200 || !strings.Contains(nowhere, "There is no site &#34;Nowhere&#34;: pick one in the list. Showing all your sites instead.") || tile(nowhere, "total-issued") != "9" {
			t.Errorf("a site that does not exist: %d", st)
		}

		req, _ := http.NewRequest("GET", c.url+"/today.csv?site=South", nil)
		resp, err := v.c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(resp.Body).ReadAll()
		resp.Body.Close()
		if err != nil || len(recs) != 3 || recs[1][1] != "Desk 3" || recs[1][len(recs[1])-1] != "South" || recs[2][1] != "TOTAL" || recs[2][len(recs[2])-1] != "South" || recs[2][3] != "3" {
			t.Errorf("CSV of South: %v %v", recs, err)
		}
		if cd := resp.Header.Get("Content-Disposition"); cd != "attachment; filename=qrdesk-"+app.FormatDate(c.clock.Now())+"-South.csv" {
			t.Errorf("CSV of South: Content-Disposition %q", cd)
		}
		_, _, all := v.get(t, "/today.csv")
		if recs, _ := csv.NewReader(strings.NewReader(all)).ReadAll(); len(recs) != 5 || recs[3][len(recs[3])-1] != "South" || recs[4][1] != "TOTAL" || recs[4][len(recs[4])-1] != "" || recs[4][2] != "9" {
			t.Errorf("CSV of every site:\n%s", all)
		}

		_, _, desks := v.get(t, "/desks")
		if got := desksOn(desks); strings.Join(got, ",") != "Desk 1,Desk 2,Desk 3" || !strings.Contains(desks, `<td class="site">North</td>`) {
			t.Errorf("Desks: %v, with a site column", got)
		}
		_, _, desks = v.get(t, "/desks?site=North")
		if got := desksOn(desks); strings.Join(got, ",") != "Desk 1,Desk 2" {
			t.Errorf("Desks of North: %v", got)
		}

		_, _, conflicts := v.get(t, "/conflicts")
		if !strings.Contains(conflicts, "conflict-"+strconv.FormatInt(c.conflicts[c.north[2]], 10)) || !strings.Contains(conflicts, "conflict-"+strconv.FormatInt(c.conflicts[c.south[1]], 10)) ||
			!strings.Contains(conflicts, `<span class="pill site">Site South</span>`) {
			t.Error("Conflicts of every site: not both conflicts, or no site")
		}
		_, _, conflicts = v.get(t, "/conflicts?site=South")
		if strings.Contains(conflicts, "conflict-"+strconv.FormatInt(c.conflicts[c.north[2]], 10)) || !strings.Contains(conflicts, "conflict-"+strconv.FormatInt(c.conflicts[c.south[1]], 10)) ||
			!strings.Contains(conflicts, ": 1 conflict, 1 not resolved.") || !strings.Contains(conflicts, `<input type="hidden" name="site" value="South">`) {
			t.Error("Conflicts of South: want South's label's conflict alone (redeemed at a desk of North too)")
		}
		// Resolving on South's page comes back to it.
		form := url.Values{"csrf": {v.csrf(t)}, "id": {strconv.FormatInt(c.conflicts[c.south[1]], 10)}, "date": {app.FormatDate(c.clock.Now())}, "site": {"South"}, "note": {"two parcels, checked"}}
		if st, loc, _ := v.post(t, "/conflicts/resolve", form); st != http.StatusSeeOther || !strings.Contains(loc, "site=South") {
			t.Errorf("resolve on South's page: %d %s", st, loc)
		}
	})
}

// TestAdminLimitedToSites: an administrator limited to South sees only
// South's figures, desks, conflicts and labels, and no staff list; a desk,
// conflict, label or site of North named by URL or form answers a 403 page
// that says whose it is, and changes nothing; South's own are theirs to
// act on. Lifted with 'admin sites NAME --all-sites' (SetAdminSites nil),
// the limit is gone at the next page, without signing in again.
func TestAdminLimitedToSites(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		c := newChain(t, dbPath(t))
		password := c.admin(t, "li")
		if err := c.db.SetAdminSites(ctx, "li", []string{"South"}, 1); err != nil {
			t.Fatal(err)
		}
		v := c.visitor()
		if st, _, _ := v.signIn(t, "li", password); st != http.StatusSeeOther {
			t.Fatalf("sign in: %d", st)
		}
		csrf := v.csrf(t)

		_, _, today := v.get(t, "/?pause=1")
		if got := desksOn(today); strings.Join(got, ",") != "Desk 3" || tile(today, "total-issued") != "4" || tile(today, "total-redeemed") != "3" ||
			tile(today, "total-conflicts") != "0" || strings.Contains(today, `id="by-site"`) || strings.Contains(today, `<select name="site"`) ||
			!strings.Contains(today, `id="sitename">Site South<`) {
			t.Errorf("li's Today: desks %v, issued %s, redeemed %s: want South's alone, its name, no picker", got, tile(today, "total-issued"), tile(today, "total-redeemed"))
		}
		if strings.Contains(today, `href="/operators"`) {
			t.Error("li's menu offers the staff list")
		}
		_, _, csvText := v.get(t, "/today.csv")
		if recs, _ := csv.NewReader(strings.NewReader(csvText)).ReadAll(); len(recs) != 3 || recs[1][1] != "Desk 3" {
			t.Errorf("li's CSV:\n%s", csvText)
		}
		_, _, desks := v.get(t, "/desks")
		if got := desksOn(desks); strings.Join(got, ",") != "Desk 3" {
			t.Errorf("li's Desks: %v", got)
		}
		_, _, conflicts := v.get(t, "/conflicts")
		if strings.Contains(conflicts, "conflict-"+strconv.FormatInt(c.conflicts[c.north[2]], 10)) || !strings.Contains(conflicts, "conflict-"+strconv.FormatInt(c.conflicts[c.south[1]], 10)) {
			t.Error("li's Conflicts: want South's label's conflict alone")
		}
		if st, _, body := v.get(t, "/code?code="+url.QueryEscape(c.south[0])); st != 200 || !strings.Contains(body, `id="code-site">South<`) {
			t.Errorf("li looking up South's label: %d", st)
		}

		northConflict := strconv.FormatInt(c.conflicts[c.north[2]], 10)
		for _, tc := range []struct {
			method, path string
			form         url.Values
			want         string
		}{
			{"GET", "/?site=North", nil, "Site North is not one of your sites (South)."},
			{"GET", "/today.csv?site=North", nil, "Site North is not one of your sites (South)."},
			{"GET", "/desks?site=North", nil, "Site North is not one of your sites (South)."},
			{"GET", "/conflicts?site=North", nil, "Site North is not one of your sites (South)."},
			{"GET", "/desks/revoke?name=Desk+1", nil, "Desk &#34;Desk 1&#34; is in site North, which is not one of your sites (South): you cannot see or change it."},
			{"POST", "/desks/revoke", url.Values{"name": {"Desk 1"}}, "Desk &#34;Desk 1&#34; is in site North, which is not one of your sites (South): you cannot see or change it."},
			{"POST", "/conflicts/resolve", url.Values{"id": {northConflict}, "note": {"done"}, "date": {app.FormatDate(c.clock.Now())}},
				"This conflict is about a label of site North, which is not one of your sites (South): you cannot see or resolve it."},
			{"GET", "/code?code=" + url.QueryEscape(c.north[0]), nil, "Label " + c.north[0] + " belongs to site North, which is not one of your sites (South)."},
			{"GET", "/code?code=" + url.QueryEscape(c.northSpare), nil, "Label " + c.northSpare + " carries the letter of desk Desk 1 of site North, which is not one of your sites (South)."},
			{"GET", "/operators", nil, "The staff list belongs to the whole deployment: only an administrator of every site can see or change it. Your sites: South."},
			{"POST", "/operators/change", url.Values{"action": {"remove"}, "name": {"wang"}}, "The staff list belongs to the whole deployment"},
		} {
			var st int
			var body string
			if tc.method == "GET" {
				st, _, body = v.get(t, tc.path)
			} else {
				tc.form.Set("csrf", csrf)
				st, _, body = v.post(t, tc.path, tc.form)
			}
			if st != http.StatusForbidden || !strings.Contains(body, tc.want) || !strings.Contains(body, `id="forbidden"`) {
				t.Errorf("%s %s: %d, want 403 saying %q:\n%s", tc.method, tc.path, st, tc.want, body)
			}
			if strings.Contains(body, c.north[1]) || strings.Contains(body, "Desk 2") {
				t.Errorf("%s %s: the 403 page shows North's labels or desks", tc.method, tc.path)
			}
		}
		v.lang = "zh-CN"
		if st, _, body := v.get(t, "/desks/revoke?name=Desk+1"); st != http.StatusForbidden || !strings.Contains(body, "工位 &#34;Desk 1&#34; 属于站点 North，不是您的站点（South）") {
			t.Errorf("the 403 page in Chinese: %d", st)
		}
		v.lang = ""
		// Nothing of North changed.
		stations, err := c.db.Stations(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range stations {
			if st.RevokedAt != 0 {
				t.Errorf("%s was revoked by li", st.Name)
			}
		}
		if n := countRows(t, c, `SELECT count(*) FROM conflict_resolutions`); n != 0 {
			t.Errorf("%d resolutions after li's refused one, want none", n)
		}

		// South's own: li acts on them.
		form := url.Values{"csrf": {csrf}, "id": {strconv.FormatInt(c.conflicts[c.south[1]], 10)}, "date": {app.FormatDate(c.clock.Now())}, "note": {"customer had two parcels"}}
		if st, _, _ := v.post(t, "/conflicts/resolve", form); st != http.StatusSeeOther {
			t.Errorf("li resolving South's conflict: %d", st)
		}
		if st, _, _ := v.get(t, "/desks/revoke?name=Desk+3"); st != 200 {
			t.Errorf("li asking to revoke Desk 3: %d", st)
		}
		if st, _, _ := v.post(t, "/desks/revoke", url.Values{"csrf": {csrf}, "name": {"Desk 3"}}); st != http.StatusSeeOther {
			t.Errorf("li revoking Desk 3: %d", st)
		}
		if n := countRows(t, c, `SELECT count(*) FROM stations WHERE revoked_at <> 0`); n != 1 {
			t.Errorf("%d desks revoked, want Desk 3", n)
		}

		// Every site again: at the next page, the same session.
		if err := c.db.SetAdminSites(ctx, "li", nil, 2); err != nil {
			t.Fatal(err)
		}
		if st, _, body := v.get(t, "/operators"); st != 200 || !strings.Contains(body, `href="/operators"`) {
			t.Errorf("li with every site, the staff list: %d", st)
		}
		if _, _, today := v.get(t, "/?pause=1"); tile(today, "total-issued") != "9" || !strings.Contains(today, `id="by-site"`) {
			t.Error("li with every site: Today is not every site's")
		}
	})
}

func countRows(t *testing.T, c *chain, query string) int {
	t.Helper()
	return serverdbtest.Of(t, c.db).Count(query)
}

// TestOneSiteLooksAsBefore: a deployment of one site (every upgraded one)
// shows no site picker, site table or site column: only its name under the
// page's title.
func TestOneSiteLooksAsBefore(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		s := newSite(t, dbPath(t), false)
		token := s.station(t, "Desk 1", "A")
		codes := s.issue(t, 2)
		s.upload(t, token, codes)
		s.redeem(t, token, "one-site-1", codes[0], 0)
		v := s.visitor()
		v.signIn(t, "manager", s.admin(t, "manager"))
		for _, path := range []string{"/?pause=1", "/desks", "/conflicts"} {
			st, _, body := v.get(t, path)
			if st != 200 || strings.Contains(body, `<select`) || strings.Contains(body, `id="by-site"`) || strings.Contains(body, `class="site"`) ||
				!strings.Contains(body, `<span class="sitename" id="sitename">Site `+central.DefaultSite+`</span>`) {
				t.Errorf("%s with one site: %d, want no picker, site table or column, and 'Site main'", path, st)
			}
		}
		v.lang = "zh-CN"
		if _, _, body := v.get(t, "/?pause=1"); !strings.Contains(body, `id="sitename">站点 main<`) {
			t.Error("the site's name in Chinese")
		}
	})
}

// TestSitePickerInChromium: in real headless Chromium, an administrator
// of every site reads Today by site, picks South in the site picker (a
// form: no JavaScript), and keeps it going to Desks and Conflicts by the
// menu. SQLite only, as the other browser test: the engines' reads are
// tested on both by TestDashboardBySite.
func TestSitePickerInChromium(t *testing.T) {
	c := newChain(t, sqlitePath(t))
	password := c.admin(t, "boss")
	ctx := chromium(t)
	browserStep(t, ctx, "sign in", chromedp.Navigate(c.url+"/login?next=%2F%3Fpause%3D1"),
		chromedp.SendKeys(chromedp.ID("name"), "boss"), chromedp.SendKeys(chromedp.ID("password"), password),
		chromedp.Submit(chromedp.ID("login")), chromedp.WaitVisible(chromedp.ID("by-site")))
	sites := browserRun(t, ctx, "site rows", chromedp.Evaluate[[]string](`[...document.querySelectorAll('#by-site tbody tr, #by-site tfoot tr')].map(r => [...r.cells].map(c => c.textContent.trim()).join('|'))`))
	if want := []string{"North|2|5|5|2|1|0|0|0|2|–|–", "South|1|4|4|3|0|0|0|0|0|7|1", "Total|3|9|9|5|1|0|0|0|2|7|1"}; strings.Join(sites, "\n") != strings.Join(want, "\n") {
		t.Fatalf("by site:\n%s\nwant\n%s", strings.Join(sites, "\n"), strings.Join(want, "\n"))
	}
	screenshot(t, ctx, "today-sites")
	browserStep(t, ctx, "pick South", chromedp.SetValue(chromedp.ID("site"), "South"), chromedp.Submit(chromedp.CSS("form.daynav")),
		chromedp.WaitVisible(chromedp.ID("sitename")))
	desks := browserRun(t, ctx, "desks", chromedp.Evaluate[[]string](`[...document.querySelectorAll('#by-desk tbody tr')].map(r => r.cells[0].textContent)`))
	if strings.Join(desks, ",") != "Desk 3" || browserRun(t, ctx, "redeemed", chromedp.Text(chromedp.ID("total-redeemed"))) != "3" {
		t.Fatalf("Today of South: desks %v", desks)
	}
	browserStep(t, ctx, "Desks of South by the menu", chromedp.Click(chromedp.CSS(`nav a[href^="/desks"]`)), chromedp.WaitVisible(chromedp.ID("desks")))
	if got := browserRun(t, ctx, "desks", chromedp.Evaluate[[]string](`[...document.querySelectorAll('#desks tbody tr')].map(r => r.dataset.desk + ' ' + r.cells[1].textContent)`)); strings.Join(got, ",") != "Desk 3 South" {
		t.Fatalf("Desks of South: %v", got)
	}
	browserStep(t, ctx, "every site's desks", chromedp.SetValue(chromedp.ID("site"), ""), chromedp.Submit(chromedp.CSS("form.daynav")),
		chromedp.WaitVisible(chromedp.CSS(`tr[data-desk="Desk 1"]`)))
	screenshot(t, ctx, "desks-sites")
}
