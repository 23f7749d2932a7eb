package webhook

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	mrand "math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Endpoint is a configured receiver.
type Endpoint struct {
	ID     int64
	Name   string
	URL    string
	Secret string // never logged, never listed
	Paused bool
	// Delivered is the feed position delivered through.
	Delivered int64
	CreatedAt int64
	// Failures is how many attempts failed in a row; LastError the last
	// one's error.
	Failures  int
	LastError string
}

// RedactedURL is the endpoint's URL without a password it may carry.
func (e Endpoint) RedactedURL() string { return Redact(e.URL) }

// Redact hides the password of a URL (https://user:xxxxx@host/…) and
// the value of a query parameter that names a secret (?token=xxxxx,
// api_key, access_token, key, secret, password, sig…): receivers that
// take their credential in the query are common.
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(not a URL)"
	}
	if u.RawQuery != "" {
		parts := strings.Split(u.RawQuery, "&")
		for i, p := range parts {
			name, _, ok := strings.Cut(p, "=")
			if ok && secretParam(name) {
				parts[i] = name + "=xxxxx"
			}
		}
		u.RawQuery = strings.Join(parts, "&")
	}
	return u.Redacted()
}

// secretParam reports whether a query parameter's name says it holds a
// credential.
func secretParam(name string) bool {
	if n, err := url.QueryUnescape(name); err == nil {
		name = n
	}
	name = strings.ToLower(name)
	for _, w := range []string{"token", "key", "secret", "pass", "pwd", "auth", "sig", "credential", "session"} {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// Attempt is one delivery attempt, as the delivery log keeps it.
type Attempt struct {
	Endpoint int64
	Position int64
	EventID  string
	At       int64 // the server's clock, Unix seconds
	// Status is the HTTP status the receiver answered (0: no answer: it
	// could not be reached, or did not answer in time).
	Status int
	Error  string
	TookMS int64
}

// OK reports whether the attempt delivered the event.
func (a Attempt) OK() bool { return a.Status >= 200 && a.Status < 300 }

// Backlog is an endpoint's state for the metrics and the dashboard.
type Backlog struct {
	Name   string
	Paused bool
	// Oldest is when the server decided the oldest event not delivered
	// yet (Unix seconds; 0: none waits).
	Oldest    int64
	Failures  int
	LastError string
}

// Store is what the deliverer needs of the server's database (serverdb).
type Store interface {
	// Webhooks returns the endpoints.
	Webhooks(ctx context.Context) ([]Endpoint, error)
	// LeaseWebhook takes or renews the endpoint's lease for owner until
	// the Unix time until; false when another owner holds it past now.
	LeaseWebhook(ctx context.Context, id int64, owner string, now, until int64) (bool, error)
	// ReleaseWebhook gives the lease up (a process that stops).
	ReleaseWebhook(ctx context.Context, id int64, owner string) error
	// Handovers returns up to limit events after the feed position after,
	// and the last position it looked at (scanned ≥ every event's
	// Cursor; after when the feed has nothing beyond it).
	Handovers(ctx context.Context, after int64, limit int) (evs []Event, scanned int64, err error)
	// WebhookDelivered records the endpoint delivered through position
	// through (never lowers it) and clears its failures.
	WebhookDelivered(ctx context.Context, id int64, through int64) error
	// LogWebhookAttempt adds an attempt to the delivery log (keeping the
	// endpoint's last keep) and, when it failed, counts the failure.
	LogWebhookAttempt(ctx context.Context, a Attempt, keep int) error
}

// Deliverer posts every decided event to every endpoint that is not
// paused: in feed order (so in order per label), one at a time, the next
// only once the receiver answered 2xx to this one; a failure is tried
// again after an exponential backoff with jitter. The position delivered
// through is in the database, so a restart (or another server process
// taking the lease over) goes on from there: at least once, never lost.
type Deliverer struct {
	Store Store
	Log   *slog.Logger
	// Now is the server's clock: the signatures' timestamps, the leases,
	// the delivery log.
	Now func() time.Time
	// Client posts (default: a 10 s timeout).
	Client *http.Client
	// Poll is how often it looks for new events and endpoints (default 1 s).
	Poll time.Duration
	// BackoffMin and BackoffMax bound the wait after a failure (default
	// 1 s and 5 min): it doubles with each failure in a row, with jitter.
	BackoffMin, BackoffMax time.Duration
	// Lease is how long an endpoint is this process's once taken (default
	// 30 s, renewed with every page).
	Lease time.Duration
	// Keep is how many attempts the delivery log keeps per endpoint
	// (default 200).
	Keep int

	owner string
	mu    sync.Mutex
	busy  map[int64]bool
	next  map[int64]time.Time // backoff: not before (monotonic)
	// nextFor is the failures in a row a backoff waits after: one the
	// database no longer counts (`webhook resume` or `pause` reset them)
	// is over, so a resumed endpoint is delivered to at once.
	nextFor map[int64]int
	wg      sync.WaitGroup
}

func (d *Deliverer) defaults() {
	if d.Client == nil {
		d.Client = &http.Client{Timeout: 10 * time.Second}
	}
	// A redirect is an answer, not a new address: following one would
	// post the signed event where the endpoint's URL does not say.
	client := *d.Client
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	d.Client = &client
	if d.Poll <= 0 {
		d.Poll = time.Second
	}
	if d.BackoffMin <= 0 {
		d.BackoffMin = time.Second
	}
	if d.BackoffMax <= 0 {
		d.BackoffMax = 5 * time.Minute
	}
	if d.Lease <= 0 {
		d.Lease = 30 * time.Second
	}
	if d.Keep <= 0 {
		d.Keep = 200
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	var b [8]byte
	rand.Read(b[:]) //nolint:errcheck // crypto/rand.Read never fails
	d.owner = hex.EncodeToString(b[:])
	d.busy, d.next, d.nextFor = map[int64]bool{}, map[int64]time.Time{}, map[int64]int{}
}

// Run delivers until ctx ends, then waits for the posts in flight and
// gives its leases up.
func (d *Deliverer) Run(ctx context.Context) {
	d.defaults()
	tick := time.NewTicker(d.Poll)
	defer tick.Stop()
	for {
		d.round(ctx)
		select {
		case <-ctx.Done():
			d.wg.Wait()
			d.release()
			return
		case <-tick.C:
		}
	}
}

// round starts a delivery for each endpoint that is not paused, not busy
// and not waiting out a backoff.
func (d *Deliverer) round(ctx context.Context) {
	eps, err := d.Store.Webhooks(ctx)
	if err != nil {
		if ctx.Err() == nil {
			d.Log.Warn("could not read the webhook endpoints", "error", err.Error())
		}
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, ep := range eps {
		if ep.Failures < d.nextFor[ep.ID] {
			delete(d.next, ep.ID) // resumed (or paused) since: the backoff is over
			delete(d.nextFor, ep.ID)
		}
		if ep.Paused || d.busy[ep.ID] || time.Now().Before(d.next[ep.ID]) {
			continue
		}
		d.busy[ep.ID] = true
		d.wg.Add(1)
		go func() {
			defer d.wg.Done()
			failed := d.deliver(ctx, ep)
			d.mu.Lock()
			defer d.mu.Unlock()
			delete(d.busy, ep.ID)
			if failed > 0 {
				d.next[ep.ID], d.nextFor[ep.ID] = time.Now().Add(d.backoff(failed)), failed
			} else {
				delete(d.next, ep.ID)
				delete(d.nextFor, ep.ID)
			}
		}()
	}
}

// release gives up every lease this process holds (a clean stop: another
// process takes over at once).
func (d *Deliverer) release() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	eps, err := d.Store.Webhooks(ctx)
	if err != nil {
		return
	}
	for _, ep := range eps {
		d.Store.ReleaseWebhook(ctx, ep.ID, d.owner) //nolint:errcheck // the lease runs out anyway
	}
}

// backoff is the wait after the n-th failure in a row: BackoffMin doubled
// n-1 times, at most BackoffMax, then a random part of it taken off (up
// to half), so endpoints that failed together do not retry together.
func (d *Deliverer) backoff(n int) time.Duration {
	w := d.BackoffMin
	for i := 1; i < n && w < d.BackoffMax; i++ {
		w *= 2
	}
	w = min(w, d.BackoffMax)
	return w - time.Duration(mrand.Int64N(int64(w/2)+1))
}

// page is how many events one delivery round reads.
const page = 200

// deliver posts the endpoint's next events, in order, a page at a time,
// until it has them all, one fails or the lease is lost. It returns the
// endpoint's failures in a row (0: none).
func (d *Deliverer) deliver(ctx context.Context, ep Endpoint) int {
	for {
		now := d.Now()
		ok, err := d.Store.LeaseWebhook(ctx, ep.ID, d.owner, now.Unix(), now.Add(d.Lease).Unix())
		if err != nil || !ok {
			return 0 // another server process delivers to it, it was paused, or the database is away: next round
		}
		evs, scanned, err := d.Store.Handovers(ctx, ep.Delivered, page)
		if err != nil {
			if ctx.Err() == nil {
				d.Log.Warn("could not read the events to deliver", "endpoint", ep.Name, "error", err.Error())
			}
			return 0
		}
		if scanned <= ep.Delivered {
			return 0 // it has them all
		}
		if failed := d.deliverPage(ctx, &ep, evs, scanned); failed > 0 || ctx.Err() != nil {
			return failed
		}
	}
}

// deliverPage posts a page's events in order, then records the endpoint
// delivered through scanned (past the changes not delivered: uploads, the
// staff list). It returns the failures in a row when one fails.
func (d *Deliverer) deliverPage(ctx context.Context, ep *Endpoint, evs []Event, scanned int64) int {
	for _, ev := range evs {
		a := d.post(ctx, *ep, ev)
		if ctx.Err() != nil {
			return 0 // stopping: the event is delivered again after the restart
		}
		if err := d.Store.LogWebhookAttempt(ctx, a, d.Keep); err != nil {
			d.Log.Warn("could not log a webhook delivery", "endpoint", ep.Name, "error", err.Error())
		}
		if !a.OK() {
			d.Log.Info("webhook delivery failed; trying again later", "endpoint", ep.Name, "event", ev.ID, "status", a.Status, "error", a.Error, "failures", ep.Failures+1)
			return ep.Failures + 1
		}
		if err := d.Store.WebhookDelivered(ctx, ep.ID, ev.Cursor); err != nil {
			d.Log.Warn("could not record a webhook delivery (it is delivered again)", "endpoint", ep.Name, "error", err.Error())
			return 1
		}
		ep.Delivered, ep.Failures = ev.Cursor, 0
	}
	if err := d.Store.WebhookDelivered(ctx, ep.ID, scanned); err != nil {
		if ctx.Err() == nil {
			d.Log.Warn("could not record a webhook delivery", "endpoint", ep.Name, "error", err.Error())
		}
		return 1
	}
	ep.Delivered = scanned
	return 0
}

// post delivers one event and says how it went.
func (d *Deliverer) post(ctx context.Context, ep Endpoint, ev Event) Attempt {
	now := d.Now()
	a := Attempt{Endpoint: ep.ID, Position: ev.Cursor, EventID: ev.ID, At: now.Unix()}
	body, err := json.Marshal(ev)
	if err != nil {
		a.Error = err.Error()
		return a
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.URL, bytes.NewReader(body))
	if err != nil {
		a.Error = "the endpoint's URL is not usable: " + Redact(ep.URL)
		return a
	}
	ts := now.Unix()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "qrdesk-server")
	req.Header.Set(HeaderTimestamp, strconv.FormatInt(ts, 10))
	req.Header.Set(HeaderSignature, Sign(ep.Secret, ts, body))
	req.Header.Set(HeaderEventID, ev.ID)
	start := time.Now()
	resp, err := d.Client.Do(req)
	a.TookMS = time.Since(start).Milliseconds()
	if err != nil {
		a.Error = describe(err)
		return a
	}
	defer resp.Body.Close()
	a.Status = resp.StatusCode
	if !a.OK() {
		snippet, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
		a.Error = fmt.Sprintf("the receiver answered %s", printable(resp.Status))
		if loc := resp.Header.Get("Location"); loc != "" {
			a.Error += " to " + Redact(loc) + " (redirects are not followed: give the endpoint its final URL)"
		}
		if s := printable(string(snippet)); s != "" {
			a.Error += ": " + s
		}
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16)) //nolint:errcheck // draining for reuse
	return a
}

// describe says why a post had no answer, without the URL's password
// (url.Error carries the URL as given).
func describe(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		if ue.Timeout() {
			return "no answer in time (" + Redact(ue.URL) + ")"
		}
		return "could not reach " + Redact(ue.URL) + ": " + ue.Err.Error()
	}
	return err.Error()
}

// printable is a receiver's text as the delivery log keeps it: valid
// UTF-8, control characters (a NUL, which PostgreSQL's text refuses, a
// line break) made spaces, trimmed.
func printable(s string) string {
	s = strings.ToValidUTF8(s, "?")
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, s))
}
