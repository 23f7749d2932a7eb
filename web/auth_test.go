package web_test

import (
	"crypto/tls"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"qrdesk/internal/testpg"
)

var discard = slog.New(slog.DiscardHandler)

func insecureTLS() *tls.Config { return &tls.Config{InsecureSkipVerify: true} }

// visitor is a browser without JavaScript: it keeps cookies, sends the
// Origin a browser sends with a form, and does not follow redirects.
type visitor struct {
	s      *site
	c      *http.Client
	origin string
	lang   string
}

func (s *site) visitor() *visitor {
	jar, _ := cookiejar.New(nil)
	c := s.client()
	c.Jar = jar
	return &visitor{s: s, c: c, origin: s.url}
}

// get returns the status, the Location of a redirect and the body.
func (v *visitor) get(t *testing.T, path string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", v.s.url+path, nil)
	if v.lang != "" {
		req.Header.Set("Accept-Language", v.lang)
	}
	return v.do(t, req)
}

func (v *visitor) post(t *testing.T, path string, form url.Values) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", v.s.url+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if v.origin != "" {
		req.Header.Set("Origin", v.origin)
	}
	return v.do(t, req)
}

func (v *visitor) do(t *testing.T, req *http.Request) (int, string, string) {
	t.Helper()
	resp, err := v.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Location"), string(body)
}

func (v *visitor) signIn(t *testing.T, name, password string) (int, string, string) {
	t.Helper()
	return v.post(t, "/login", url.Values{"name": {name}, "password": {password}, "next": {"/desks"}})
}

// csrf reads the form token from a signed-in page.
func (v *visitor) csrf(t *testing.T) string {
	t.Helper()
	_, _, body := v.get(t, "/desks")
	_, rest, ok := strings.Cut(body, `name="csrf" value="`)
	if !ok {
		t.Fatalf("no CSRF token on the page:\n%s", body)
	}
	return rest[:strings.IndexByte(rest, '"')]
}

// dashboardPages are every page and action of the dashboard.
var dashboardPages = []struct{ method, path string }{
	{"GET", "/"}, {"GET", "/?date=2026-11-28"}, {"GET", "/today.csv"}, {"GET", "/desks"}, {"GET", "/desks/revoke?name=Desk+1"},
	{"GET", "/conflicts"}, {"GET", "/code?code=x"}, {"GET", "/operators"}, {"POST", "/desks/revoke"}, {"POST", "/conflicts/resolve"}, {"POST", "/operators/change"}, {"POST", "/logout"},
}

// TestWithoutSessionNoData: every page and action, without a session or
// with a made-up or signed-out one, answers with the sign-in page and no
// data, and changes nothing.
func TestWithoutSessionNoData(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		s := newSite(t, dbPath(t), false)
		token := s.station(t, "Desk 1", "A")
		s.upload(t, token, s.issue(t, 3))
		password := s.admin(t, "manager")

		signedOut := s.visitor()
		if st, _, _ := signedOut.signIn(t, "manager", password); st != http.StatusSeeOther {
			t.Fatalf("sign in: %d", st)
		}
		csrf := signedOut.csrf(t)
		if st, loc, _ := signedOut.post(t, "/logout", url.Values{"csrf": {csrf}}); st != http.StatusSeeOther || loc != "/login" {
			t.Fatalf("sign out: %d %s", st, loc)
		}
		madeUp := s.visitor()
		u, _ := url.Parse(s.url)
		madeUp.c.Jar.SetCookies(u, []*http.Cookie{{Name: "qrdesk_session", Value: "made-up"}})

		for who, v := range map[string]*visitor{"no cookie": s.visitor(), "made-up cookie": madeUp, "signed out": signedOut} {
			for _, p := range dashboardPages {
				var st int
				var loc, body string
				if p.method == "GET" {
					st, loc, body = v.get(t, p.path)
				} else {
					st, loc, body = v.post(t, p.path, url.Values{"name": {"Desk 1"}, "id": {"1"}, "note": {"x"}, "csrf": {csrf}})
				}
				if st != http.StatusSeeOther || !strings.HasPrefix(loc, "/login?next=") {
					t.Errorf("%s: %s %s → %d %q, want a redirect to the sign-in page", who, p.method, p.path, st, loc)
				}
				if strings.Contains(body, "Desk 1") || strings.Contains(body, "redeemed") {
					t.Errorf("%s: %s %s showed data: %s", who, p.method, p.path, body)
				}
			}
			st, _, body := v.get(t, "/login")
			if st != 200 || !strings.Contains(body, `id="password"`) {
				t.Errorf("%s: the sign-in page: %d", who, st)
			}
		}
		if st := s.call(t, "GET", "/v1/changes", token, nil, nil); st != 200 {
			t.Fatalf("Desk 1 after the refused revocations: %d, want still enrolled", st)
		}
	})
}

// TestSignIn: cookie attributes (Secure under TLS), forms refused without
// their token or from another site, sign-in failures limited per name with
// a clear message, sign-out ends the session.
func TestSignIn(t *testing.T) {
	for _, tls := range []bool{false, true} {
		t.Run(map[bool]string{false: "HTTP", true: "HTTPS"}[tls], func(t *testing.T) {
			s := newSite(t, sqlitePath(t), tls)
			token := s.station(t, "Desk 1", "A")
			password := s.admin(t, "manager")
			v := s.visitor()
			req, _ := http.NewRequest("POST", s.url+"/login", strings.NewReader(url.Values{"name": {"manager"}, "password": {password}, "next": {"/conflicts?date=2026-11-28"}}.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Origin", s.url)
			resp, err := v.c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/conflicts?date=2026-11-28" {
				t.Fatalf("sign in: %d → %q, want back to the page asked for", resp.StatusCode, resp.Header.Get("Location"))
			}
			c := resp.Cookies()[0]
			if c.Name != "qrdesk_session" || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Secure != tls || len(c.Value) < 40 {
				t.Fatalf("cookie %+v: want HttpOnly, SameSite, Secure=%v, a long random value", c, tls)
			}

			csrf := v.csrf(t)
			revoke := url.Values{"name": {"Desk 1"}, "csrf": {csrf}}
			noToken := url.Values{"name": {"Desk 1"}}
			if st, _, body := v.post(t, "/desks/revoke", noToken); st != http.StatusForbidden || !strings.Contains(body, "out of date") {
				t.Fatalf("without the form token: %d %s", st, body)
			}
			v.origin = "https://evil.example"
			if st, _, body := v.post(t, "/desks/revoke", revoke); st != http.StatusForbidden || !strings.Contains(body, "not sent from this dashboard") {
				t.Fatalf("from another site: %d %s", st, body)
			}
			v.origin = ""
			if st, _, _ := v.post(t, "/desks/revoke", revoke); st != http.StatusForbidden {
				t.Fatalf("without Origin or Referer: %d", st)
			}
			if st := s.call(t, "GET", "/v1/changes", token, nil, nil); st != 200 {
				t.Fatalf("refused forms revoked the desk: %d", st)
			}
			v.origin = s.url
			if st, loc, _ := v.post(t, "/desks/revoke", revoke); st != http.StatusSeeOther || !strings.HasPrefix(loc, "/desks?revoked=") {
				t.Fatalf("revoke: %d %s", st, loc)
			}
			if st := s.call(t, "GET", "/v1/changes", token, nil, nil); st != http.StatusForbidden {
				t.Fatalf("the revoked desk: %d, want 403", st)
			}

			// Sign-out ends the session on the server, not only in the browser.
			old := v.c.Jar.Cookies(mustURL(s.url))
			v.post(t, "/logout", url.Values{"csrf": {csrf}})
			again := s.visitor()
			again.c.Jar.SetCookies(mustURL(s.url), old)
			if st, loc, _ := again.get(t, "/desks"); st != http.StatusSeeOther || !strings.HasPrefix(loc, "/login") {
				t.Fatalf("the signed-out cookie still works: %d %s", st, loc)
			}
		})
	}
}

// TestSignInLimited: five wrong passwords for a name lock it for 15
// minutes, even with the right password, from any address; twenty from
// one address lock that address for every name.
func TestSignInLimited(t *testing.T) {
	s := newSite(t, sqlitePath(t), false)
	password := s.admin(t, "manager")
	other := s.admin(t, "li.wei")
	v := s.visitor()
	for i := 0; i < 5; i++ {
		if st, _, body := v.signIn(t, "manager", "wrong"); st != http.StatusUnauthorized || !strings.Contains(body, "Wrong name or password") {
			t.Fatalf("attempt %d: %d", i+1, st)
		}
	}
	st, _, body := v.signIn(t, "manager", password)
	if st != http.StatusTooManyRequests || !strings.Contains(body, "Too many failed sign-ins") || !strings.Contains(body, "15 minutes") {
		t.Fatalf("sixth attempt, right password: %d %s", st, body)
	}
	if st, _, _ := v.signIn(t, "li.wei", other); st != http.StatusSeeOther {
		t.Fatalf("another name from the same address: %d, want signed in", st)
	}
	s.clock.Advance(15 * time.Minute)
	if st, _, _ := v.signIn(t, "manager", password); st != http.StatusSeeOther {
		t.Fatalf("15 minutes later: %d, want signed in", st)
	}
	// Many names from one address: the address is limited.
	for i := 0; i < 20; i++ {
		v.signIn(t, "guess"+string(rune('a'+i)), "wrong")
	}
	if st, _, _ := v.signIn(t, "li.wei", other); st != http.StatusTooManyRequests {
		t.Fatalf("after 20 failures from one address: %d, want 429", st)
	}
}

// TestLanguage: Accept-Language picks Chinese; the switch overrides it.
func TestLanguage(t *testing.T) {
	s := newSite(t, sqlitePath(t), false)
	password := s.admin(t, "manager")
	v := s.visitor()
	v.lang = "zh-CN,zh;q=0.9,en;q=0.5"
	if _, _, body := v.get(t, "/login"); !strings.Contains(body, `lang="zh-Hans"`) || !strings.Contains(body, "登录") {
		t.Fatalf("zh-CN browser: the sign-in page is not in Chinese:\n%s", body)
	}
	v.signIn(t, "manager", password)
	if _, _, body := v.get(t, "/"); !strings.Contains(body, "每小时核销") || strings.Contains(body, "Redemptions per hour") {
		t.Fatalf("Today in Chinese:\n%s", body)
	}
	if st, loc, _ := v.post(t, "/lang", url.Values{"to": {"en"}, "back": {"/desks"}}); st != http.StatusSeeOther || loc != "/desks" {
		t.Fatalf("switch: %d %s", st, loc)
	}
	if _, _, body := v.get(t, "/desks"); !strings.Contains(body, `lang="en"`) || !strings.Contains(body, "Sign out") {
		t.Fatal("after switching to English, the page is not in English")
	}
	// A switch never sends anyone to another site.
	if _, loc, _ := v.post(t, "/lang", url.Values{"to": {"en"}, "back": {"//evil.example/"}}); loc != "/" {
		t.Fatalf("back to another site: %q", loc)
	}
	v.lang = "en-US,en;q=0.9"
	if _, _, body := v.get(t, "/desks"); !strings.Contains(body, `lang="en"`) {
		t.Fatal("en-US browser after picking English")
	}
}

// TestLanguageSwitchOnlyFromTheDashboard: the switch on the page (a form)
// works signed out too; a link or form of another site does not change a
// manager's language.
func TestLanguageSwitchOnlyFromTheDashboard(t *testing.T) {
	s := newSite(t, sqlitePath(t), false)
	password := s.admin(t, "manager")
	v := s.visitor()
	_, _, body := v.get(t, "/login")
	if !strings.Contains(body, `<form method="post" action="/lang"`) || !strings.Contains(body, `name="to" value="zh"`) || !strings.Contains(body, `name="back" value="/login"`) {
		t.Fatalf("the sign-in page has no switch form:\n%s", body)
	}
	// (Back to /, which sends a signed-out visitor to the sign-in page.)
	if st, loc, _ := v.post(t, "/lang", url.Values{"to": {"zh"}, "back": {"/login"}}); st != http.StatusSeeOther || loc != "/" {
		t.Fatalf("switch signed out: %d %s", st, loc)
	}
	if _, _, body := v.get(t, "/login"); !strings.Contains(body, `lang="zh-Hans"`) {
		t.Fatal("the sign-in page is not in Chinese after the switch")
	}
	v.signIn(t, "manager", password)

	// A plain GET, as a link or image of any site sends it, changes nothing.
	for _, path := range []string{"/lang?to=en&back=%2Fdesks", "/lang?to=en"} {
		st, _, _ := v.get(t, path)
		if st == http.StatusSeeOther {
			t.Fatalf("GET %s: %d, want no switch", path, st)
		}
	}
	// A form of another site, or one without Origin or Referer, is refused.
	for _, origin := range []string{"https://evil.example", ""} {
		v.origin = origin
		if st, _, _ := v.post(t, "/lang", url.Values{"to": {"en"}, "back": {"/desks"}}); st != http.StatusForbidden {
			t.Fatalf("switch from origin %q: %d, want 403", origin, st)
		}
	}
	v.origin = s.url
	if _, _, body := v.get(t, "/desks"); !strings.Contains(body, `lang="zh-Hans"`) {
		t.Fatal("another site changed the manager's language")
	}
}

// TestStaticNoListing: the stylesheet is served; the folder is not listed.
func TestStaticNoListing(t *testing.T) {
	s := newSite(t, sqlitePath(t), false)
	v := s.visitor()
	if st, _, body := v.get(t, "/static/style.css"); st != 200 || !strings.Contains(body, ".who") {
		t.Fatalf("the stylesheet: %d", st)
	}
	for _, path := range []string{"/static/", "/static", "/static/./", "/static//"} {
		st, _, body := v.get(t, path)
		if strings.Contains(body, "style.css") || st == 200 {
			t.Fatalf("GET %s: %d, lists the folder:\n%s", path, st, body)
		}
	}
}

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}
