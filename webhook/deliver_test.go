package webhook_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
	"qrdesk/webhook"
)

func TestMain(m *testing.M) { testpg.Main(m) }

const secret = "whsec_test_0123456789abcdef"

// receiver is a warehouse system's endpoint on loopback that misbehaves:
// it answers 500 to 30 % of the deliveries (3 in every 10), lets 10 % wait past the
// deliverer's timeout, and is down (drops the connection) while down is
// set. It verifies every delivery it takes, and keeps what it took.
type receiver struct {
	t   *testing.T
	now func() time.Time

	mu       sync.Mutex
	flaky    bool // refuse 3 answers in 10 and time out 1 in 10
	answers  int  // the answers it gave while up
	down     bool
	got      []webhook.Event  // every verified delivery, duplicates too
	seen     map[string]bool  // ids taken
	last     map[string]int64 // label → the cursor of its latest event taken
	raw      []*http.Request  // the first few deliveries as sent, for replays
	bodies   [][]byte
	answered map[string]int // status → count
}

func newReceiver(t *testing.T, now func() time.Time) (*receiver, *httptest.Server) {
	r := &receiver{t: t, now: now, flaky: true, seen: map[string]bool{}, last: map[string]int64{}, answered: map[string]int{}}
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	return r, srv
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	down, turn := r.down, -1
	if !down && r.flaky {
		turn = r.answers % 10
		r.answers++
	}
	r.mu.Unlock()
	if down {
		hj, _ := w.(http.Hijacker)
		conn, _, _ := hj.Hijack()
		conn.Close()
		r.count("down")
		return
	}
	if err := webhook.Verify(secret, req.Header.Get(webhook.HeaderTimestamp), req.Header.Get(webhook.HeaderSignature), body, r.now(), 5*time.Minute); err != nil {
		r.t.Errorf("a delivery does not verify: %v", err)
		http.Error(w, err.Error(), http.StatusUnauthorized)
		return
	}
	switch {
	case turn == 1 || turn == 4 || turn == 7:
		r.count("500")
		http.Error(w, "the WMS is busy", http.StatusInternalServerError)
		return
	case turn == 9:
		r.count("timeout")
		time.Sleep(300 * time.Millisecond) // past the deliverer's 150 ms
	}
	var ev webhook.Event
	if err := json.Unmarshal(body, &ev); err != nil {
		r.t.Errorf("a delivery is not an event: %v: %s", err, body)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, ev)
	if len(r.raw) < 3 {
		r.raw = append(r.raw, req.Clone(context.Background()))
		r.bodies = append(r.bodies, body)
	}
	if !r.seen[ev.ID] {
		r.seen[ev.ID] = true
		if ev.Cursor <= r.last[ev.Label] {
			r.t.Errorf("event %s (%s of %s, cursor %d) came after the label's event at cursor %d", ev.ID, ev.Type, ev.Label, ev.Cursor, r.last[ev.Label])
		}
		r.last[ev.Label] = ev.Cursor
	}
	r.answered["200"]++
	w.WriteHeader(http.StatusNoContent)
}

func (r *receiver) count(what string) {
	r.mu.Lock()
	r.answered[what]++
	r.mu.Unlock()
}

func (r *receiver) setDown(down bool) {
	r.mu.Lock()
	r.down = down
	r.mu.Unlock()
}

func (r *receiver) unique() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.seen)
}

// startDeliverer runs a deliverer (one server process's) until the
// returned stop is called.
func startDeliverer(st webhook.Store, now func() time.Time) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	d := &webhook.Deliverer{Store: st, Now: now, Client: &http.Client{Timeout: 150 * time.Millisecond},
		Poll: 10 * time.Millisecond, BackoffMin: 5 * time.Millisecond, BackoffMax: 80 * time.Millisecond}
	done := make(chan struct{})
	go func() { d.Run(ctx); close(done) }()
	return func() { cancel(); <-done }
}

// TestWebhooksDeliverEveryEventOnceInOrder: two desks redeem, undo,
// replace, disable, use one label twice offline and close their day; a
// receiver that fails 30 % of the deliveries, times out some and is down
// for a while, while the server process restarts twice mid-delivery,
// ends up with every decided event, exactly once by id, in order per
// label, each signed.
func TestWebhooksDeliverEveryEventOnceInOrder(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(testing.TB) string) {
		ctx := context.Background()
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 40)
		now := func() time.Time { return h.Now }
		rcv, srv := newReceiver(t, now)
		if err := h.DB.AddWebhook(ctx, webhook.Endpoint{Name: "wms", URL: srv.URL + "/qrdesk", Secret: secret, CreatedAt: h.Now.Unix()}, false); err != nil {
			t.Fatal(err)
		}
		stop := startDeliverer(h.DB, now)

		for _, c := range codes[:6] {
			a.Redeem(t, c, "li")
		}
		a.Undo(t, codes[0], "wrong parcel")
		a.Replace(t, codes[6], "li")
		if _, err := b.Svc.SetDisabled(ctx, codes[7], true, "damaged", "boss"); err != nil {
			t.Fatal(err)
		}
		rcv.setDown(true)
		a.Offline(func() { a.Redeem(t, codes[8], "li") })
		b.Offline(func() { b.Redeem(t, codes[8], "wang") })
		a.Sync(t)
		b.Sync(t)
		stop() // a restart mid-delivery
		stop = startDeliverer(h.DB, now)
		time.Sleep(100 * time.Millisecond)
		rcv.setDown(false)
		for _, c := range codes[9:12] {
			b.Redeem(t, c, "wang")
		}
		a.CloseDay(t, true)
		a.Sync(t)
		b.Sync(t)
		stop()
		stop = startDeliverer(h.DB, now)
		defer func() { stop() }()

		want, _, err := h.DB.Handovers(ctx, 0, 10000)
		if err != nil {
			t.Fatal(err)
		}
		types := map[string]int{}
		for _, ev := range want {
			types[ev.Type]++
		}
		for _, ty := range webhook.Types {
			if ty != "enable" && types[ty] == 0 {
				t.Errorf("the story decided no %s event: %v", ty, types)
			}
		}
		deadline := time.Now().Add(60 * time.Second)
		for rcv.unique() < len(want) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		rcv.mu.Lock()
		defer rcv.mu.Unlock()
		t.Logf("%d events decided, %d deliveries taken, answers %v", len(want), len(rcv.got), rcv.answered)
		if len(rcv.seen) != len(want) {
			t.Fatalf("the receiver has %d distinct events, want %d", len(rcv.seen), len(want))
		}
		for _, ev := range want {
			if !rcv.seen[ev.ID] {
				t.Errorf("event %s (%s of %s) never arrived", ev.ID, ev.Type, ev.Label)
			}
		}
		if rcv.answered["500"] == 0 || rcv.answered["timeout"] == 0 || rcv.answered["down"] == 0 {
			t.Errorf("the receiver did not misbehave in every way: %v", rcv.answered)
		}
		for _, ev := range rcv.got {
			if ev.Type == "conflict" && (ev.Conflict == nil || ev.Conflict.First.Desk == ev.Conflict.Second.Desk) {
				t.Errorf("the conflict does not name the two desks: %+v", ev)
			}
			if ev.DecidedAt == "" || ev.Desk == "" || ev.Site != "main" {
				t.Errorf("an event lacks its decision time, desk or site: %+v", ev)
			}
		}
	})
}

// TestWebhookSignatures: a forged body, another endpoint's secret and a
// delivery replayed after the tolerance are refused; one replayed within
// it carries an id the receiver has.
func TestWebhookSignatures(t *testing.T) {
	now := time.Unix(1_780_000_000, 0)
	body := []byte(`{"id":"evt_1","type":"redeem","label":"A000001"}`)
	ts := now.Unix()
	sig := webhook.Sign(secret, ts, body)
	tsText := "1780000000"
	for _, tc := range []struct {
		name       string
		secret, ts string
		sig        string
		body       []byte
		at         time.Time
		want       error
	}{
		{"OK", secret, tsText, sig, body, now.Add(30 * time.Second), nil},
		{"OKAmongOthers", secret, tsText, "v1=00, " + sig, body, now, nil},
		{"ErrForgedBody", secret, tsText, sig, []byte(`{"id":"evt_1","type":"redeem","label":"A000002"}`), now, webhook.ErrBadSignature},
		{"ErrOtherSecret", "whsec_other", tsText, sig, body, now, webhook.ErrBadSignature},
		{"ErrTimestampMoved", secret, "1780000060", sig, body, now, webhook.ErrBadSignature},
		{"ErrReplayedLater", secret, tsText, sig, body, now.Add(6 * time.Minute), webhook.ErrStale},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := webhook.Verify(tc.secret, tc.ts, tc.sig, tc.body, tc.at, 5*time.Minute); !errors.Is(err, tc.want) {
				t.Errorf("Verify: got %v, want %v", err, tc.want)
			}
		})
	}
}
