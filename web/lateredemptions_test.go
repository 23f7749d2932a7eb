package web_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// TestConflictsPageListsLateRedemptions: an offline redemption past the
// label's expiry by the server's clock (here a desk 30 minutes slow whose
// event carries its offset) is listed on the Conflicts page of the day it
// was decided at, in English and Chinese; one before expiry is not.
func TestConflictsPageListsLateRedemptions(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(testing.TB) string) {
		s := newSite(t, dbPath(t), false)
		password := s.admin(t, "manager")
		token := s.station(t, "Desk 1", "A")
		codes := s.issue(t, 2)
		now := s.clock.Now().Unix()
		expiry := now - 20*60
		var res struct{ Added int }
		s.call(t, "POST", "/v1/batches", token, map[string]any{"codes": []map[string]any{
			{"code": codes[0], "expire_at": expiry, "created_at": expiry - 3600},
			{"code": codes[1], "expire_at": now + 3600, "created_at": expiry - 3600}}}, &res)
		slow := (30 * time.Minute).Milliseconds()
		for i, code := range codes {
			ev := protocol.Event{EventID: "late-offline-" + string(rune('a'+i)) + "xx", Kind: "redeem", Code: code, Operator: "li.na",
				At: expiry - 10*60, Offline: true, ClockOffsetMS: &slow, ClockAge: 60}
			var out struct{ Results []protocol.Result }
			if st := s.call(t, "POST", "/v1/events", token, map[string]any{"events": []protocol.Event{ev}}, &out); st != 200 {
				t.Fatalf("event %d: status %d", i, st)
			}
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
		if !strings.Contains(en, "Redeemed offline after expiry") || !strings.Contains(en, codes[0]) || !strings.Contains(en, "redeemed offline after its expiry") {
			t.Fatalf("the Conflicts page does not list the late redemption of %s:\n%s", codes[0], en)
		}
		if strings.Contains(en, codes[1]) {
			t.Fatalf("the Conflicts page lists %s, redeemed before its expiry", codes[1])
		}
		if zh := page("zh-CN"); !strings.Contains(zh, "过期后离线核销") || !strings.Contains(zh, codes[0]) {
			t.Fatalf("the Chinese Conflicts page does not list the late redemption")
		}
	})
}
