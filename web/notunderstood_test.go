package web_test

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"qrdesk/app"
	"qrdesk/internal/testpg"
)

// TestDesksPageFlagsChangesNotUnderstood: a desk that reports changes of
// the feed it does not understand is flagged on the Desks page with how
// many, in English and Chinese; a desk that reports none, or an older
// report of a day before, is not; the desk's latest report counts.
func TestDesksPageFlagsChangesNotUnderstood(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		s := newSite(t, dbPath(t), false)
		desk1, desk2 := s.station(t, "Desk 1", "A"), s.station(t, "Desk 2", "B")
		now := s.clock.Now()
		date, yesterday := app.FormatDate(now), app.FormatDate(now.AddDate(0, 0, -1))
		for _, r := range []struct {
			token string
			rep   app.DeskReport
		}{
			{desk1, app.DeskReport{Date: yesterday, At: now.Unix() - 86400}},
			{desk1, app.DeskReport{Date: date, EventsWaiting: 1, NotUnderstood: 3, At: now.Unix()}},
			{desk2, app.DeskReport{Date: yesterday, NotUnderstood: 5, At: now.Unix() - 86400}},
			{desk2, app.DeskReport{Date: date, At: now.Unix()}}, // upgraded since
		} {
			if st := s.call(t, "POST", "/v1/status", r.token, r.rep, nil); st != 200 {
				t.Fatalf("report %+v: status %d", r.rep, st)
			}
		}
		v := s.visitor()
		v.signIn(t, "manager", s.admin(t, "manager"))
		row := func(body, name string) string {
			m := regexp.MustCompile(`(?s)<tr data-desk="` + name + `">.*?</tr>`).FindString(body)
			if m == "" {
				t.Fatalf("no row for %s on the Desks page:\n%s", name, body)
			}
			return m
		}
		for _, tc := range []struct {
			lang, flag, count string
		}{
			{"en", "Upgrade needed", "does not understand 3 of the server&#39;s changes"},
			{"zh-CN", "需要升级", "有 3 条服务器变更无法理解"},
		} {
			v.lang = tc.lang
			_, _, body := v.get(t, "/desks")
			r1, r2 := row(body, "Desk 1"), row(body, "Desk 2")
			if !strings.Contains(r1, `class="pill bad not-understood">`+tc.flag+`<`) || !strings.Contains(r1, tc.count) {
				t.Errorf("%s: Desk 1 (reported 3 changes not understood) shows:\n%s\nwant %q flagged and %q", tc.lang, r1, tc.flag, tc.count)
			}
			if strings.Contains(r2, "not-understood") {
				t.Errorf("%s: Desk 2 (its latest report has none) is flagged:\n%s", tc.lang, r2)
			}
		}
	})
}

// TestStatusRefusesNegativeNotUnderstood: the count is checked as the
// report's other counts.
func TestStatusRefusesNegativeNotUnderstood(t *testing.T) {
	s := newSite(t, filepath.Join(t.TempDir(), "server.db"), false)
	desk := s.station(t, "Desk 1", "A")
	now := s.clock.Now()
	if st := s.call(t, "POST", "/v1/status", desk, app.DeskReport{Date: app.FormatDate(now), NotUnderstood: -1, At: now.Unix()}, nil); st != 400 {
		t.Fatalf("a report of -1 changes not understood: status %d, want 400", st)
	}
}
