package web_test

import (
	"context"
	"strings"
	"testing"

	"qrdesk/internal/testpg"
	"qrdesk/webhook"
)

// TestDesksPageShowsFailingWebhooks: the Desks page lists the webhook
// endpoints with their state, the oldest event not delivered, the
// failures in a row and the last error, in both languages; never the
// secret.
func TestDesksPageShowsFailingWebhooks(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		s := newSite(t, dbPath(t), false)
		desk := s.station(t, "Desk 1", "A")
		codes := s.issue(t, 1)
		if err := s.db.AddWebhook(ctx, webhook.Endpoint{Name: "wms", URL: "https://wms.example.com/in", Secret: "whsec_never_shown_1234"}, false); err != nil {
			t.Fatal(err)
		}
		s.upload(t, desk, codes)
		if o := s.redeem(t, desk, "redeemed-at-desk1", codes[0], 0); o != "redeemed" {
			t.Fatalf("redemption: %s", o)
		}
		eps, _ := s.db.Webhooks(ctx)
		if err := s.db.LogWebhookAttempt(ctx, webhook.Attempt{Endpoint: eps[0].ID, Position: 2, EventID: "evt_x", At: s.clock.Now().Unix(), Status: 503, Error: "the receiver answered 503 Service Unavailable"}, 10); err != nil {
			t.Fatal(err)
		}
		v := s.visitor()
		v.signIn(t, "manager", s.admin(t, "manager"))
		_, _, page := v.get(t, "/desks")
		for _, want := range []string{`data-webhook="wms"`, "Failing", "the receiver answered 503 Service Unavailable", `<td class="num">1</td>`} {
			if !strings.Contains(page, want) {
				t.Errorf("the Desks page lacks %q", want)
			}
		}
		if strings.Contains(page, "whsec_never_shown") {
			t.Error("the Desks page shows the endpoint's secret")
		}
		if err := s.db.SetWebhookPaused(ctx, "wms", true); err != nil {
			t.Fatal(err)
		}
		v.lang = "zh-CN"
		_, _, page = v.get(t, "/desks")
		if !strings.Contains(page, "已暂停") {
			t.Error("the Desks page in Chinese does not say the endpoint is paused")
		}
	})
}
