package webhook_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
	"qrdesk/webhook"
)

// TestWebhookAnswersTheLogKeeps: a receiver that answers with a redirect
// is not followed (the signed event never reaches the other address, the
// log says why); one that answers 500 with a NUL, a line break and bytes
// that are not UTF-8 is logged readably on both engines (PostgreSQL's
// text refuses a NUL), counted as a failure and tried again.
func TestWebhookAnswersTheLogKeeps(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h, a, _, codes := centraltest.TwoDesks(t, dbPath, 1)
		now := func() time.Time { return h.Now }
		var elsewhere atomic.Int32
		other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { elsewhere.Add(1) }))
		defer other.Close()
		redirect := httptest.NewServer(http.RedirectHandler(other.URL+"/in", http.StatusTemporaryRedirect))
		defer redirect.Close()
		garbage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusInternalServerError)
			w.Write([]byte("db\x00 down\r\nretry \xff\xfe later"))
		}))
		defer garbage.Close()
		for name, url := range map[string]string{"moved": redirect.URL, "broken": garbage.URL} {
			if err := h.DB.AddWebhook(ctx, webhook.Endpoint{Name: name, URL: url, Secret: secret}, false); err != nil {
				t.Fatal(err)
			}
		}
		a.Redeem(t, codes[0], "li")
		stop := startDeliverer(h.DB, now)
		defer stop()
		want := map[string]string{
			"moved":  "the receiver answered 307 Temporary Redirect to " + other.URL + "/in (redirects are not followed",
			"broken": "the receiver answered 500 Internal Server Error: db  down  retry ? later",
		}
		deadline := time.Now().Add(10 * time.Second)
		for name, text := range want {
			for {
				attempts, err := h.DB.WebhookAttempts(ctx, name, 5)
				if err != nil {
					t.Fatal(err)
				}
				if len(attempts) >= 2 {
					if attempts[0].OK() || !strings.Contains(attempts[0].Error, text) {
						t.Errorf("%s: the log says %+v, want a failure saying %q", name, attempts[0], text)
					}
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s: %d attempts logged in 10 s, want it tried again", name, len(attempts))
				}
				time.Sleep(10 * time.Millisecond)
			}
		}
		if n := elsewhere.Load(); n != 0 {
			t.Errorf("the redirect was followed: %d posts reached the other address", n)
		}
	})
}
