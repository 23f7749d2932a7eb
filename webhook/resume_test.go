package webhook_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
	"qrdesk/webhook"
)

// TestWebhookResumeDeliversAtOnce: an endpoint that failed waits out its
// backoff (up to 5 minutes); the operator fixes the receiver, pauses and
// resumes it, and `webhook list` shows no failures: the running server
// delivers within a second, as the docs say, not when the old backoff
// runs out.
func TestWebhookResumeDeliversAtOnce(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h, a, _, codes := centraltest.TwoDesks(t, dbPath, 1)
		var up atomic.Bool
		var got atomic.Int32
		rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !up.Load() {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			got.Add(1)
			w.WriteHeader(http.StatusNoContent)
		}))
		defer rcv.Close()
		if err := h.DB.AddWebhook(ctx, webhook.Endpoint{Name: "wms", URL: rcv.URL, Secret: secret}, false); err != nil {
			t.Fatal(err)
		}
		a.Redeem(t, codes[0], "li")
		runCtx, cancel := context.WithCancel(ctx)
		d := &webhook.Deliverer{Store: h.DB, Now: func() time.Time { return h.Now }, Client: &http.Client{Timeout: time.Second},
			Poll: 10 * time.Millisecond, BackoffMin: 5 * time.Minute, BackoffMax: 5 * time.Minute}
		done := make(chan struct{})
		go func() { d.Run(runCtx); close(done) }()
		defer func() { cancel(); <-done }()

		waitFor(t, "the first delivery to fail", func() bool {
			attempts, err := h.DB.WebhookAttempts(ctx, "wms", 5)
			return err == nil && len(attempts) > 0
		})
		up.Store(true)
		for _, paused := range []bool{true, false} {
			if err := h.DB.SetWebhookPaused(ctx, "wms", paused); err != nil {
				t.Fatal(err)
			}
		}
		deadline := time.Now().Add(2 * time.Second)
		for got.Load() == 0 {
			if time.Now().After(deadline) {
				t.Fatal("resumed endpoint: nothing delivered in 2 s (it waits out the backoff of before the pause)")
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 10 s for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
