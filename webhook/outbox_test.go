package webhook_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
	"qrdesk/webhook"
)

// TestWebhooksDeliverACrossSiteFactOnce: a North desk redeems, undoes and
// redeems again a main label; the feed writes each change for both sites
// (North's desk holds a copy), and the outbox holds each fact once, with
// the label's site.
func TestWebhooksDeliverACrossSiteFactOnce(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h := centraltest.New(t, dbPath, 0)
		m1 := h.Desk(t, "Main 1", "A", h.Station(t, "Main 1", "A"))
		n1, _ := h.SiteDesk(t, "North", "North 1", "N")
		codes := m1.Issue(t, 2)
		m1.Sync(t)
		n1.Sync(t)
		n1.Redeem(t, codes[0], "li")
		h.Now = h.Now.Add(time.Minute)
		n1.Undo(t, codes[0], "wrong parcel")
		h.Now = h.Now.Add(time.Minute)
		n1.Redeem(t, codes[0], "li")
		n1.Sync(t)
		m1.Sync(t)
		evs, _, err := h.DB.Handovers(ctx, 0, 1000)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		ids := map[string]bool{}
		for _, ev := range evs {
			got = append(got, ev.Type+" "+ev.Site+" "+ev.Desk)
			if ids[ev.ID] {
				t.Errorf("event %s is in the outbox twice", ev.ID)
			}
			ids[ev.ID] = true
		}
		want := []string{"redeem main North 1", "undo main North 1", "redeem main North 1"}
		if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
			t.Errorf("the outbox holds %q, want %q", got, want)
		}
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM changes WHERE code = ? AND kind <> 'code'`, codes[0]); n <= len(want) {
			t.Errorf("the feed holds %d changes of the label: no copy for North's desk, the test shows nothing", n)
		}
	})
}

// TestWebhookOutboxSurvivesCompaction: the feed is compacted below what
// every desk has read, but never below what an endpoint (paused here)
// has not delivered; once it is removed, compaction drops them.
func TestWebhookOutboxSurvivesCompaction(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 3)
		if err := h.DB.AddWebhook(ctx, webhook.Endpoint{Name: "wms", URL: "https://wms.example.com/", Secret: secret}, false); err != nil {
			t.Fatal(err)
		}
		if err := h.DB.SetWebhookPaused(ctx, "wms", true); err != nil {
			t.Fatal(err)
		}
		eps, _ := h.DB.Webhooks(ctx)
		for _, c := range codes {
			a.Redeem(t, c, "li")
		}
		for i := 0; i < 2; i++ {
			a.Sync(t)
			b.Sync(t)
		}
		h.Compact(t, 0)
		evs, _, err := h.DB.Handovers(ctx, eps[0].Delivered, 100)
		if err != nil || len(evs) != len(codes) {
			t.Fatalf("after compaction the paused endpoint has %d events to deliver (%v), want %d", len(evs), err, len(codes))
		}
		if err := h.DB.RemoveWebhook(ctx, "wms"); err != nil {
			t.Fatal(err)
		}
		if n := h.Compact(t, 0); n == 0 {
			t.Fatal("with the endpoint removed, compaction dropped nothing")
		}
		var ce *webhook.CompactedError
		if _, _, err := h.DB.Handovers(ctx, eps[0].Delivered, 100); !errors.As(err, &ce) {
			t.Fatalf("reading below the compacted feed: %v, want a CompactedError", err)
		}
	})
}

// TestWebhookLeaseTakenOverAfterACrash: a server process that died while
// delivering keeps its lease until it runs out; then another process
// delivers, from where the dead one stopped.
func TestWebhookLeaseTakenOverAfterACrash(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h, a, _, codes := centraltest.TwoDesks(t, dbPath, 2)
		now := func() time.Time { return h.Now }
		rcv, srv := newReceiver(t, now)
		rcv.flaky = false // answers every delivery
		if err := h.DB.AddWebhook(ctx, webhook.Endpoint{Name: "wms", URL: srv.URL, Secret: secret}, false); err != nil {
			t.Fatal(err)
		}
		eps, _ := h.DB.Webhooks(ctx)
		if ok, err := h.DB.LeaseWebhook(ctx, eps[0].ID, "a process that died", h.Now.Unix(), h.Now.Add(30*time.Second).Unix()); !ok || err != nil {
			t.Fatalf("lease: %v %v", ok, err)
		}
		a.Redeem(t, codes[0], "li")
		a.Redeem(t, codes[1], "li")
		stop := startDeliverer(h.DB, now)
		defer func() { stop() }()
		time.Sleep(200 * time.Millisecond)
		if n := rcv.unique(); n != 0 {
			t.Fatalf("%d events delivered while another process held the lease", n)
		}
		stop()
		h.Now = h.Now.Add(31 * time.Second)
		stop = startDeliverer(h.DB, now)
		deadline := time.Now().Add(10 * time.Second)
		for rcv.unique() < 2 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if n := rcv.unique(); n != 2 {
			t.Fatalf("after the lease ran out, %d events delivered, want 2", n)
		}
	})
}

// TestWebhookMetricsSayHowOldTheBacklogIs: /metrics gives each endpoint's
// oldest undelivered event's age, its pause and its failures in a row.
func TestWebhookMetricsSayHowOldTheBacklogIs(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h, a, _, codes := centraltest.TwoDesks(t, dbPath, 2)
		if err := h.DB.AddWebhook(ctx, webhook.Endpoint{Name: "wms", URL: "https://wms.example.com/", Secret: secret}, false); err != nil {
			t.Fatal(err)
		}
		h.DB.SetWebhookPaused(ctx, "wms", true)
		scrape := func() string {
			resp, err := http.Get(h.URL + "/metrics")
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return string(b)
		}
		if m := scrape(); !strings.Contains(m, `qrdesk_webhook_oldest_undelivered_seconds{endpoint="wms"} 0`) {
			t.Errorf("nothing waits, /metrics says:\n%s", grepLines(m, "qrdesk_webhook"))
		}
		a.Redeem(t, codes[0], "li")
		h.Now = h.Now.Add(10 * time.Minute)
		a.Redeem(t, codes[1], "li")
		m := scrape()
		for _, want := range []string{`qrdesk_webhook_oldest_undelivered_seconds{endpoint="wms"} 600`, `qrdesk_webhook_paused{endpoint="wms"} 1`, `qrdesk_webhook_failures_in_a_row{endpoint="wms"} 0`} {
			if !strings.Contains(m, want) {
				t.Errorf("/metrics lacks %s:\n%s", want, grepLines(m, "qrdesk_webhook"))
			}
		}
	})
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestWebhookCatchesUpPastABigUpload: 600 labels uploaded are 600 feed
// changes that are not delivered; the redemption after them is delivered
// in the same round, not one page of them per poll.
func TestWebhookCatchesUpPastABigUpload(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h, a, _, codes := centraltest.TwoDesks(t, dbPath, 600)
		now := func() time.Time { return h.Now }
		rcv, srv := newReceiver(t, now)
		rcv.flaky = false // answers every delivery
		if err := h.DB.AddWebhook(ctx, webhook.Endpoint{Name: "wms", URL: srv.URL, Secret: secret}, true); err != nil {
			t.Fatal(err)
		}
		a.Redeem(t, codes[599], "li")
		runCtx, cancel := context.WithCancel(ctx)
		d := &webhook.Deliverer{Store: h.DB, Now: now, Poll: time.Hour} // one round, then an hour
		done := make(chan struct{})
		go func() { d.Run(runCtx); close(done) }()
		defer func() { cancel(); <-done }()
		deadline := time.Now().Add(10 * time.Second)
		for rcv.unique() < 1 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if rcv.unique() != 1 {
			t.Fatal("the redemption after the upload was not delivered in the first round")
		}
	})
}
