package faultsim

// The warehouse's webhook receiver: every run has one endpoint, added
// with the server, that the server process's deliverer (started and
// killed with it, central.go) posts every decided event to. The receiver
// refuses 30 % of the attempts (by the event and its attempt number, so
// a seed's schedule is not changed by it), and is down whenever the
// server is. I17 checks it ends with every event of the server's outbox.

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"time"

	"qrdesk/webhook"
)

// InvWebhooks: after convergence the webhook receiver has every event of
// the server's outbox (by id), each delivery verified; with no restore in
// the run, each label's events first arrived in the outbox's order (a
// restored server decides the desks' events again, possibly in another
// order: the receiver then de-duplicates by id).
const InvWebhooks = "I17 every decided event reaches the webhook, signed, in order per label"

func init() { Invariants = append(Invariants, InvWebhooks) }

const wmsSecret = "whsec_faultsim_0123456789abcdef"

// wms is the receiver.
type wms struct {
	srv   *httptest.Server
	mu    sync.Mutex
	tries map[string]int  // attempts by event id
	seen  map[string]bool // ids taken
	first []webhook.Event // the events in the order first taken
	bad   []string        // deliveries that did not verify
}

func newWMS() *wms {
	w := &wms{tries: map[string]int{}, seen: map[string]bool{}}
	w.srv = httptest.NewServer(http.HandlerFunc(w.serve))
	return w
}

func (w *wms) serve(rw http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := webhook.Verify(wmsSecret, r.Header.Get(webhook.HeaderTimestamp), r.Header.Get(webhook.HeaderSignature), body, time.Now(), 5*time.Minute); err != nil {
		w.bad = append(w.bad, err.Error())
		http.Error(rw, err.Error(), http.StatusUnauthorized)
		return
	}
	var ev webhook.Event
	if err := json.Unmarshal(body, &ev); err != nil {
		w.bad = append(w.bad, "not an event: "+string(body))
		http.Error(rw, "not an event", http.StatusBadRequest)
		return
	}
	n := w.tries[ev.ID]
	w.tries[ev.ID]++
	h := fnv.New32a()
	h.Write([]byte(ev.ID + "/" + strconv.Itoa(n)))
	if h.Sum32()%10 < 3 {
		http.Error(rw, "the WMS is busy", http.StatusServiceUnavailable)
		return
	}
	if !w.seen[ev.ID] {
		w.seen[ev.ID] = true
		w.first = append(w.first, ev)
	}
	rw.WriteHeader(http.StatusNoContent)
}

// has reports whether the receiver took every event of want.
func (w *wms) has(want []webhook.Event) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, ev := range want {
		if !w.seen[ev.ID] {
			return false
		}
	}
	return true
}

// webhookDelivery is how long the checker waits for the deliverer to
// catch up after the desks are quiet (its backoff is at most 100 ms).
const webhookDelivery = 30 * time.Second

// webhooks checks I17: it waits for the receiver to have the server's
// outbox, then compares.
func (c *checker) webhooks(ctx context.Context) error {
	w := c.r.srv.wms
	var want []webhook.Event
	deadline := time.Now().Add(webhookDelivery)
	for {
		var err error
		if want, err = c.r.srv.outbox(ctx); err != nil {
			return err
		}
		if w.has(want) || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	attempts := 0
	for _, n := range w.tries {
		attempts += n
	}
	c.notes = append(c.notes, fmt.Sprintf("webhook: %d events in the outbox, %d taken by the receiver in %d attempts", len(want), len(w.seen), attempts))
	for _, b := range w.bad {
		c.fail(InvWebhooks, -1, "a delivery did not verify: %s", b)
	}
	cursor := map[string]int64{}
	for _, ev := range want {
		if at, ok := cursor[ev.ID]; ok {
			// Two facts under one id: a receiver de-duplicating by id
			// (as docs/webhooks.md asks) drops the later.
			c.fail(InvWebhooks, c.label(ev.Label), "%s of %s (cursor %d) has the id %s of cursor %d: a receiver drops it as a duplicate", ev.Type, c.codeName(ev.Label), ev.Cursor, ev.ID, at)
		}
		cursor[ev.ID] = ev.Cursor
		if !w.seen[ev.ID] {
			c.fail(InvWebhooks, c.label(ev.Label), "%s of %s (cursor %d) never reached the webhook", ev.Type, c.codeName(ev.Label), ev.Cursor)
		}
	}
	if len(c.r.restores) > 0 {
		return nil
	}
	last := map[string]webhook.Event{}
	for _, ev := range w.first {
		at, ok := cursor[ev.ID]
		if !ok {
			continue
		}
		if prev, ok := last[ev.Label]; ok && cursor[prev.ID] > at {
			c.fail(InvWebhooks, c.label(ev.Label), "%s of %s (cursor %d) reached the webhook after %s (cursor %d)", ev.Type, c.codeName(ev.Label), at, prev.Type, cursor[prev.ID])
		}
		last[ev.Label] = ev
	}
	return nil
}
