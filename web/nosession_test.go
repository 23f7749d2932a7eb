package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"qrdesk/internal/testpg"
)

// TestOddRequestsWithoutASessionGetNoData: odd methods and paths without a session,
// and a session past its end, get no data.
func TestOddRequestsWithoutASessionGetNoData(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		s := newSite(t, dbPath(t), false)
		token := s.station(t, "Desk 1", "A")
		codes := s.issue(t, 2)
		s.upload(t, token, codes)
		s.redeem(t, token, "morning-001", codes[0], 0)
		password := s.admin(t, "manager")
		paths := []string{"/", "//", "/today.csv", "/today.csv/", "/desks/", "/desks/./", "/static/../desks", "/%64esks", "/desks%2F", "/conflicts/", "/code?code=" + url.QueryEscape(codes[0]), "/code/?code=" + url.QueryEscape(codes[0]), "/Desks", "/static/../today.csv", "/static/%2e%2e/desks", "/static//desks"}
		check := func(who string, v *visitor) {
			for _, p := range paths {
				for _, m := range []string{"GET", "HEAD", "POST", "PUT", "OPTIONS"} {
					req, _ := http.NewRequest(m, s.url+p, nil)
					req.Header.Set("Origin", s.url)
					st, _, body := v.do(t, req)
					if st == 200 && m != "OPTIONS" && !strings.HasPrefix(p, "/static") || strings.Contains(body, "Desk 1") || !strings.Contains(p, codes[0]) && strings.Contains(body, codes[0]) || strings.Contains(body, "morning-001") {
						t.Errorf("%s: %s %s → %d %q", who, m, p, st, body)
					}
				}
			}
		}
		check("no cookie", s.visitor())
		v := s.visitor()
		if st, _, _ := v.signIn(t, "manager", password); st != http.StatusSeeOther {
			t.Fatalf("sign in: %d", st)
		}
		if st, _, body := v.get(t, "/desks"); st != 200 || !strings.Contains(body, "Desk 1") {
			t.Fatalf("signed in: %d", st)
		}
		s.clock.Advance(13 * time.Hour)
		check("expired", v)
	})
}
