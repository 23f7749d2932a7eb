package multidesk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
	"qrdesk/serverdb"
	"qrdesk/webhook"
)

const whSecret = "whsec_multidesk_0123456789"

// wms is a warehouse system's webhook receiver: it verifies each delivery
// and keeps the events by id (a receiver de-duplicates by id).
type wms struct {
	mu    sync.Mutex
	byID  map[string]webhook.Event
	posts int
	bad   []string
}

func newWMS(t *testing.T, now func() time.Time) (*wms, string) {
	w := &wms{byID: map[string]webhook.Event{}}
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.mu.Lock()
		defer w.mu.Unlock()
		w.posts++
		if err := webhook.Verify(whSecret, r.Header.Get(webhook.HeaderTimestamp), r.Header.Get(webhook.HeaderSignature), body, now(), 5*time.Minute); err != nil {
			w.bad = append(w.bad, err.Error())
			http.Error(rw, err.Error(), http.StatusUnauthorized)
			return
		}
		var ev webhook.Event
		json.Unmarshal(body, &ev)
		w.byID[ev.ID] = ev
	}))
	t.Cleanup(srv.Close)
	return w, srv.URL
}

func (w *wms) has(ids map[string]webhook.Event) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for id := range ids {
		if _, ok := w.byID[id]; !ok {
			return false
		}
	}
	return true
}

// deliver runs a server process's deliverer over st until stop.
func deliver(st webhook.Store, now func() time.Time) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	d := &webhook.Deliverer{Store: st, Now: now, Client: &http.Client{Timeout: time.Second}, Poll: 10 * time.Millisecond,
		BackoffMin: 5 * time.Millisecond, BackoffMax: 100 * time.Millisecond}
	done := make(chan struct{})
	go func() { d.Run(ctx); close(done) }()
	return func() { cancel(); <-done }
}

// outbox is every event the server's database holds to deliver, by id.
func outbox(t *testing.T, st webhook.Store) map[string]webhook.Event {
	t.Helper()
	evs, _, err := st.Handovers(context.Background(), 0, 100000)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]webhook.Event{}
	for _, ev := range evs {
		out[ev.ID] = ev
	}
	return out
}

// waitDelivered waits until the receiver has every event of the outbox.
func waitDelivered(t *testing.T, w *wms, st webhook.Store, what string) map[string]webhook.Event {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		want := outbox(t, st)
		if w.has(want) {
			return want
		}
		if time.Now().After(deadline) {
			w.mu.Lock()
			defer w.mu.Unlock()
			for id, ev := range want {
				if _, ok := w.byID[id]; !ok {
					eps, _ := st.Webhooks(context.Background())
					t.Logf("not received: %s of %s at cursor %d; the endpoint delivered through %d", ev.Type, ev.Label, ev.Cursor, eps[0].Delivered)
				}
			}
			t.Fatalf("%s: the receiver has %d of the %d events of the outbox", what, len(w.byID), len(want))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestWebhooksAfterServerRestore: a WMS receives the redemptions as they
// are decided; the server's database is then restored from a backup taken
// before the last three. The restored server's endpoint goes on from the
// backup's cursor; a new redemption comes first, then the desks send
// everything again, and the WMS ends with every redemption once by id:
// those decided again (at other feed positions) carry the ids it already
// has (the id is the fact's, not the position's), and nothing decided
// after the backup is lost.
func TestWebhooksAfterServerRestore(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		g := newRestorable(t, dbPath)
		now := func() time.Time { return g.Now }
		w, url := newWMS(t, now)
		if err := g.DB.AddWebhook(ctx, webhook.Endpoint{Name: "wms", URL: url, Secret: whSecret}, false); err != nil {
			t.Fatal(err)
		}
		a, b := g.deskAt(t, "Desk A", "A"), g.deskAt(t, "Desk B", "B")
		codes := a.Issue(t, 7)
		a.Sync(t)
		b.Sync(t)
		stop := deliver(g.DB, now)
		for _, c := range codes[:3] {
			a.Redeem(t, c, "li")
		}
		waitDelivered(t, w, g.DB, "before the backup")
		backup := g.serverBackup(t)
		for _, c := range codes[3:6] {
			b.Redeem(t, c, "wang")
		}
		before := waitDelivered(t, w, g.DB, "after the backup")
		if len(before) != 6 {
			t.Fatalf("%d events before the restore, want the 6 redemptions", len(before))
		}
		stop()
		g.DB.Close()
		if _, err := serverdb.Restore(ctx, backup, g.cur, g.Now); err != nil {
			t.Fatal(err)
		}
		g.open(g.cur)
		stop = deliver(g.DB, now)
		defer func() { stop() }()
		// Desk A hands over a parcel first: Desk B's three, sent again,
		// are decided after it, at other feed positions than before.
		a.Redeem(t, codes[6], "li")
		for range 2 {
			a.Sync(t)
			b.Sync(t)
		}
		after := waitDelivered(t, w, g.DB, "after the restore")
		w.mu.Lock()
		defer w.mu.Unlock()
		if len(w.byID) != 7 || len(after) != 7 {
			var got []string
			for _, ev := range w.byID {
				got = append(got, fmt.Sprintf("%s %s %s", ev.Type, ev.Label, ev.Desk))
			}
			t.Errorf("the WMS has %d distinct events (%v) and the restored outbox %d, want the 7 redemptions once each", len(w.byID), got, len(after))
		}
		for id, ev := range before {
			if _, ok := after[id]; !ok {
				t.Errorf("%s of %s has another id after the restore", ev.Type, ev.Label)
			}
		}
		if len(w.bad) > 0 {
			t.Errorf("deliveries that did not verify: %v", w.bad)
		}
	})
}

// TestWebhooksThroughFailover: the server runs on a PostgreSQL primary
// with a synchronous standby; its deliverer posts every redemption while
// the primary is killed at its worst moment (replication stalled) and the
// standby promoted. The cursor is in the database, so the new primary's
// deliverer goes on from what the standby had: the WMS ends with every
// event the new primary decided, once by id.
func TestWebhooksThroughFailover(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pg := testpg.StartReplicated(t)
	defer func() {
		if t.Failed() {
			t.Log(pg.Log())
		}
	}()
	h := centraltest.New(t, func(testing.TB) string { return pg.URL() }, 0)
	now := func() time.Time { return h.Now }
	w, url := newWMS(t, now)
	if err := h.DB.AddWebhook(ctx, webhook.Endpoint{Name: "wms", URL: url, Secret: whSecret}, false); err != nil {
		t.Fatal(err)
	}
	a := h.Desk(t, "Desk A", "A", h.Station(t, "Desk A", "A"))
	a.Svc.OfflineFor = 300 * time.Millisecond
	codes := a.Issue(t, 20)
	a.Sync(t)
	stop := deliver(h.DB, now)
	defer func() { stop() }()
	for _, c := range codes[:10] {
		a.Redeem(t, c, "li")
	}
	if err := pg.StallReplication(ctx); err != nil {
		t.Fatal(err)
	}
	if err := pg.KillPrimary(); err != nil {
		t.Fatal(err)
	}
	if err := pg.Promote(); err != nil {
		t.Fatal(err)
	}
	for _, c := range codes[10:] {
		a.Redeem(t, c, "li") // online again, or alone and sent at the next sync
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := a.Svc.Sync(ctx)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the desk cannot sync with the new primary: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	got := waitDelivered(t, w, h.DB, "after the failover")
	redeemed := 0
	for _, ev := range got {
		if ev.Type == "redeem" {
			redeemed++
		}
	}
	if redeemed != len(codes) {
		t.Errorf("the new primary's outbox holds %d redemptions, want %d", redeemed, len(codes))
	}
	if len(w.bad) > 0 {
		t.Errorf("deliveries that did not verify: %v", w.bad)
	}
}
