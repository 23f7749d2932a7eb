package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"qrdesk/internal/testpg"
)

// browserLocation is what a browser makes of a relative Location: the URL
// standard strips tabs and newlines before it reads "//host".
func browserLocation(loc string) string {
	return strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(loc)
}

// TestRedirectStaysOnSite: the "next" of the sign-in form and the
// "back" of the language switch may never send the browser to another
// site, whatever characters a link smuggles in.
func TestRedirectStaysOnSite(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		s := newSite(t, dbPath(t), false)
		password := s.admin(t, "manager")
		evil := []string{"/\t/evil.example/", "/\n/evil.example/", "/\r\n/evil.example/", "/\t\\evil.example/", "\t//evil.example/", "//evil.example/", "/\\evil.example/", "https://evil.example/"}
		offSite := func(loc string) bool {
			b := browserLocation(loc)
			return !strings.HasPrefix(b, "/") || strings.HasPrefix(b, "//") || strings.HasPrefix(b, "/\\") || strings.Contains(loc, "evil.example") && strings.HasPrefix(strings.TrimLeft(b, "/\\"), "evil.example")
		}
		v := s.visitor()
		if st, _, _ := v.signIn(t, "manager", password); st != http.StatusSeeOther {
			t.Fatalf("sign in: %d", st)
		}
		session := v.c.Jar.Cookies(mustURL(s.url))
		// raw sends one request without following or parsing the redirect
		// (Go's client refuses a Location a browser would follow).
		raw := func(req *http.Request) (int, string) {
			t.Helper()
			resp, err := http.DefaultTransport.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			return resp.StatusCode, resp.Header.Get("Location")
		}
		for _, next := range evil {
			req, _ := http.NewRequest("POST", s.url+"/login", strings.NewReader(url.Values{"name": {"manager"}, "password": {password}, "next": {next}}.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Origin", s.url)
			if st, loc := raw(req); st != http.StatusSeeOther || offSite(loc) {
				t.Errorf("sign in with next=%q → %d Location %q: the browser leaves the site", next, st, loc)
			}
			req, _ = http.NewRequest("POST", s.url+"/lang", strings.NewReader(url.Values{"to": {"zh"}, "back": {next}}.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Origin", s.url)
			if st, loc := raw(req); st != http.StatusSeeOther || offSite(loc) {
				t.Errorf("/lang back=%q → %d Location %q: the browser leaves the site", next, st, loc)
			}
			req, _ = http.NewRequest("GET", s.url+"/login?next="+url.QueryEscape(next), nil)
			for _, c := range session {
				req.AddCookie(c)
			}
			if st, loc := raw(req); st != http.StatusSeeOther || offSite(loc) {
				t.Errorf("signed in, /login next=%q → %d Location %q: the browser leaves the site", next, st, loc)
			}
		}
	})
}
