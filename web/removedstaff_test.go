package web_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// TestConflictsPageListsRemovedStaffWork: li.na is removed from the staff
// list at the server; Desk 1, offline, had not heard and lets li.na redeem
// a label ten minutes later. The Conflicts page of that day lists the
// redemption under the work of removed operators, with the server's note,
// in English and Chinese; li.na's redemption of another label before the
// removal is not listed.
func TestConflictsPageListsRemovedStaffWork(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(testing.TB) string) {
		ctx := context.Background()
		s := newSite(t, dbPath(t), false)
		password := s.admin(t, "manager")
		token := s.station(t, "Desk 1", "A")
		codes := s.issue(t, 2)
		s.upload(t, token, codes)
		hash, err := app.HashPIN("2468")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.db.ChangeStaff(ctx, protocol.StaffChange{Action: protocol.StaffAdd, Name: "li.na", PINHash: hash}, "manager", s.clock.Now().Unix()-3600); err != nil {
			t.Fatal(err)
		}
		if out := s.redeem(t, token, "removed-staff-before", codes[0], s.clock.Now().Unix()-60); out != protocol.OutcomeRedeemed {
			t.Fatalf("li.na's redemption before the removal: %s", out)
		}
		if _, err := s.db.ChangeStaff(ctx, protocol.StaffChange{Action: protocol.StaffRemove, Name: "li.na"}, "manager", s.clock.Now().Unix()); err != nil {
			t.Fatal(err)
		}
		s.clock.Advance(10 * time.Minute)
		if out := s.redeem(t, token, "removed-staff-after", codes[1], s.clock.Now().Unix()); out != protocol.OutcomeRedeemed {
			t.Fatalf("li.na's redemption after the removal: %s, want redeemed (flagged)", out)
		}
		_, cookie := signInCookie(t, s.url, "manager", password)
		page := func(lang string) string {
			req, _ := http.NewRequest("GET", s.url+"/conflicts?date="+s.clock.Now().Format("2006-01-02"), nil)
			req.AddCookie(&http.Cookie{Name: "qrdesk_session", Value: cookie})
			req.Header.Set("Accept-Language", lang)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			return string(body)
		}
		en := page("en")
		if !strings.Contains(en, "Work by removed operators") || !strings.Contains(en, codes[1]) || !strings.Contains(en, "by li.na, removed from the staff list") {
			t.Fatalf("the Conflicts page does not list li.na's redemption of %s after the removal:\n%s", codes[1], en)
		}
		if strings.Contains(en, codes[0]) {
			t.Fatalf("the Conflicts page lists %s, redeemed before li.na's removal", codes[0])
		}
		if zh := page("zh-CN"); !strings.Contains(zh, "已移除操作员的操作") || !strings.Contains(zh, codes[1]) {
			t.Fatalf("the Chinese Conflicts page does not list the removed operator's work:\n%s", zh)
		}
	})
}
