package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"qrdesk/protocol"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"qrdesk/app"
	"qrdesk/server"
)

// load is one run: the desks, the labels in play and what was measured.
type load struct {
	cfg   config
	log   *slog.Logger
	runID string
	keys  app.Keys
	ring  string
	desks []*desk
	start time.Time // the desks came online; every recorded time is since then
	head0 int64     // the feed's head when they did

	ending     chan struct{}  // closed when scanning stops
	finalSyncs sync.WaitGroup // desks that have not uploaded everything after it

	feedRequests  atomic.Int64
	feedDelivered atomic.Int64

	mu        sync.Mutex
	stats     stats
	latencies []time.Duration    // online redeem round trips
	used      []usedLabel        // labels the server recorded as used: for double uses
	online    []onlineRedemption // online redemptions: for the convergence lag
	problems  []string           // failed checks (the exit code is 1)
	warnings  []string           // first few errors that are not failures
	nWarnings int
}

// stats are the run's counters.
type stats struct {
	Scans             int `json:"scans"`
	NoLabel           int `json:"no_label"` // scans skipped: no label left to scan
	DecidedOffline    int `json:"decided_offline"`
	OnlineRedeemed    int `json:"online_redeemed"`
	OnlineAlreadyUsed int `json:"online_already_used"`
	OnlineTimeouts    int `json:"online_timeouts"`
	OnlineRefused     int `json:"online_refused"`
	DoubleUses        int `json:"double_uses"`
	DoubleOffline     int `json:"double_uses_decided_offline"`
	Queued            int `json:"events_queued"`
	Accepted          int `json:"events_accepted"`
	NotAccepted       int `json:"events_not_accepted"` // answered, but neither redeemed nor a conflict
	Waiting           int `json:"events_waiting"`      // still in an outbox at the end
	WaitingDouble     int `json:"double_uses_waiting"` // of which double uses
	OfflineRedeemed   int `json:"offline_redeemed"`
	Conflicts         int `json:"conflicts"`
	Unexpected        int `json:"unexpected_answers"`
	Recorded          int `json:"events_recorded"` // events the server stored (first answers)
	Syncs             int `json:"syncs"`
	SyncErrors        int `json:"sync_errors"`
	FollowErrors      int `json:"follow_errors"`
	TopUpBatches      int `json:"batches_during_run"`
	Snapshots         int `json:"snapshots"` // desks that started over: the feed was compacted past them
}

type usedLabel struct {
	code string
	desk int
}

type onlineRedemption struct {
	code string
	desk int
	at   time.Duration // answered, since the run began
}

func newLoad(cfg config, logw io.Writer) *load {
	id := make([]byte, 3)
	rand.Read(id)
	return &load{cfg: cfg, runID: "L" + hex.EncodeToString(id), ending: make(chan struct{}),
		log: slog.New(slog.NewTextHandler(logw, &slog.HandlerOptions{Level: slog.LevelInfo}))}
}

func (l *load) since() time.Duration { return time.Since(l.start) }

func (l *load) count(f func(*stats)) {
	l.mu.Lock()
	f(&l.stats)
	l.mu.Unlock()
}

// problemf records a failed check (fatal) or an error worth showing
// (the first few; they are counted).
func (l *load) problemf(fatal bool, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	l.mu.Lock()
	defer l.mu.Unlock()
	if fatal {
		if len(l.problems) < 20 {
			l.problems = append(l.problems, msg)
		}
		return
	}
	l.nWarnings++
	if len(l.warnings) < 5 {
		l.warnings = append(l.warnings, msg)
	}
}

// takeLabel picks an unscanned label: half the time from this desk's own
// batches, else from another desk's (parcels move between desks). A label
// taken is never handed out again but as a deliberate double use.
func (l *load) takeLabel(d *desk) string {
	from := d
	for try := 0; try < 8; try++ {
		if try > 0 || mrand.IntN(2) == 1 {
			from = l.desks[mrand.IntN(len(l.desks))]
		}
		from.mu.Lock()
		if n := len(from.stock); n > 0 {
			label := from.stock[n-1]
			from.stock = from.stock[:n-1]
			from.mu.Unlock()
			return label
		}
		from.mu.Unlock()
	}
	return ""
}

// usedElsewhere picks a label the server recorded as used at another desk.
func (l *load) usedElsewhere(deskIndex int) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	for try := 0; try < 8 && len(l.used) > 0; try++ {
		u := l.used[mrand.IntN(len(l.used))]
		if u.desk != deskIndex {
			return u.code
		}
	}
	return ""
}

// uploaded checks the server's answer to an event the desk decided alone:
// every one is accepted, as a redemption, or as a conflict when it was a
// deliberate double use.
func (l *load) uploaded(d *desk, q queued, r app.RemoteResult) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := &l.stats
	if !r.Duplicate {
		s.Recorded++
	}
	switch {
	case r.Outcome == "redeemed" && !q.double:
		s.Accepted++
		s.OfflineRedeemed++
		l.used = append(l.used, usedLabel{code: q.ev.Code, desk: d.i})
		return
	case r.Outcome == protocol.OutcomeConflict && q.double:
		s.Accepted++
		s.Conflicts++
		return
	case r.Outcome == protocol.OutcomeRedeemed || r.Outcome == protocol.OutcomeConflict:
		s.Accepted++
		s.Unexpected++
	default:
		s.NotAccepted++
	}
	if len(l.problems) < 20 {
		l.problems = append(l.problems, fmt.Sprintf("offline event %s (%s, double use %v) from desk %d: server said %s %s", r.EventID, q.ev.Code, q.double, d.i, r.Outcome, r.Reason))
	}
}

// run sets the desks up, scans for the duration, lets every desk upload
// and catch up, and measures.
func (l *load) run(ctx context.Context) (*Report, error) {
	cfg := l.cfg
	var err error
	if l.keys, err = app.LoadKeys(cfg.keyFile, true); err != nil {
		return nil, err
	}
	l.ring = l.keys.RingID()

	// The server and the database first: fail early and clearly.
	probe := &http.Client{Timeout: 5 * time.Second}
	resp, err := probe.Get(strings.TrimRight(cfg.server, "/") + "/v1/health")
	if err != nil {
		return nil, fmt.Errorf("no qrdesk-server answers at %s (start it first): %w", cfg.server, err)
	}
	resp.Body.Close()
	proc := newProcWatch(cfg, l.log)

	setupStart := time.Now()
	var stations []station
	if cfg.tokens != "" {
		stations, err = readTokens(cfg.tokens, cfg.desks)
	} else {
		stations, err = enrol(ctx, cfg.db, l.runID, cfg.desks, l.keys)
	}
	if err != nil {
		return nil, err
	}
	// One connection per waiting long poll, plus the scans and syncs: keep
	// that many idle connections, or every request after a long poll would
	// open a new one.
	transport := &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        3*cfg.desks + 64,
		MaxIdleConnsPerHost: 3*cfg.desks + 64,
		IdleConnTimeout:     50 * time.Second, // below the server's 60 s
	}
	defer transport.CloseIdleConnections()
	hc := &http.Client{Transport: transport, Timeout: 30 * time.Second}
	l.desks = make([]*desk, len(stations))
	for i, st := range stations {
		c := server.NewClient(cfg.server, st.token)
		c.HTTP = hc
		l.desks[i] = &desk{l: l, i: i, c: c, learned: map[string]int{}}
	}
	// The first desk binds the key ring; then the others, in parallel.
	if _, err := l.desks[0].c.Enrol(ctx, l.ring, nil); err != nil {
		return nil, fmt.Errorf("enrol the first desk: %w", err)
	}
	if err := parallel(len(l.desks), 16, func(i int) error { _, err := l.desks[i].c.Enrol(ctx, l.ring, nil); return err }); err != nil {
		return nil, fmt.Errorf("enrol: %w", err)
	}
	// Each desk's batch: enough for its share of the scans and half again.
	perDesk := int(math.Ceil(cfg.rate*cfg.duration.Seconds()/float64(len(l.desks))*1.5)) + 5
	if err := parallel(len(l.desks), 8, func(i int) error {
		labels, err := newLabels(l.keys, perDesk)
		if err != nil {
			return err
		}
		l.desks[i].stock = labels
		return uploadLabels(ctx, l.desks[i].c, l.ring, labels)
	}); err != nil {
		return nil, fmt.Errorf("upload batches: %w", err)
	}
	// Desks start at the head of the feed: the batches just uploaded are
	// the morning's, not part of the measurement.
	head, err := l.feedHead(ctx, 0)
	if err != nil {
		return nil, fmt.Errorf("read the feed: %w", err)
	}
	l.head0 = head
	for _, d := range l.desks {
		d.cursor = head
	}
	l.log.Info("set up", "desks", len(l.desks), "labels", perDesk*len(l.desks), "feed_head", head, "took", time.Since(setupStart).Round(time.Millisecond))
	dbStart, dbErr := dbSize(ctx, cfg.db)

	// The desks come online and follow the feed before scanning starts.
	l.start = time.Now()
	lifeCtx, stopLives := context.WithCancel(ctx)
	defer stopLives()
	var lives, readyWG sync.WaitGroup
	readyWG.Add(len(l.desks))
	l.finalSyncs.Add(len(l.desks))
	for _, d := range l.desks {
		lives.Add(1)
		go func() {
			defer lives.Done()
			d.life(lifeCtx, sync.OnceFunc(readyWG.Done))
		}()
	}
	if !waitTimeout(&readyWG, 30*time.Second) {
		l.problemf(false, "not every desk was following the feed 30 s after the start")
	}
	time.Sleep(200 * time.Millisecond) // the long polls are in place

	l.log.Info("scanning", "rate", cfg.rate, "duration", cfg.duration)
	scanStart := time.Now()
	proc.begin()
	scanned := l.scan(lifeCtx)
	window := time.Since(scanStart)
	proc.end()
	close(l.ending)

	// Every desk comes online and uploads what it decided alone; then each
	// catches up with the feed.
	drainStart := time.Now()
	deadline := time.Now().Add(cfg.drain)
	waitTimeout(&l.finalSyncs, cfg.drain)
	drainCtx, cancelDrain := context.WithDeadline(ctx, deadline)
	head, caughtUp := l.catchUp(drainCtx, deadline)
	cancelDrain()
	if !caughtUp {
		l.problemf(true, "after %v of drain some desks had not caught up with the feed (head %d)", cfg.drain, head)
	}
	drained := time.Since(drainStart)
	stopLives()
	lives.Wait()
	l.log.Info("drained", "took", drained.Round(time.Millisecond))

	waitingDesks, waiting := 0, 0
	for _, d := range l.desks {
		if len(d.outbox) > 0 {
			waitingDesks++
			waiting += len(d.outbox)
		}
		for _, q := range d.outbox {
			if q.double {
				l.stats.WaitingDouble++
			}
		}
	}
	l.stats.Waiting = waiting
	if waiting > 0 {
		l.problemf(true, "%d desks still had %d events decided offline in their outbox at the end (the server did not take them within --drain)", waitingDesks, waiting)
	}
	positions, err := l.redeemPositions(ctx)
	if err != nil {
		l.problemf(true, "read the feed: %v", err)
	}
	dbEnd, dbErr2 := dbSize(ctx, cfg.db)
	rep := l.report(window, scanned, drained, positions, proc)
	if dbErr == nil && dbErr2 == nil {
		rep.setDatabase(dbStart, dbEnd)
	} else if cfg.db != "" {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("database size not measured: %v", errors.Join(dbErr, dbErr2)))
	}
	return rep, nil
}

// scan sends --rate scans a second for --duration, each to a random desk,
// arriving at random (Poisson) times. Scans do not wait for each other:
// a slow server meets the same arrivals as a fast one.
func (l *load) scan(ctx context.Context) int {
	cfg := l.cfg
	var wg sync.WaitGroup
	n := 0
	next := time.Now()
	end := next.Add(cfg.duration)
	for {
		next = next.Add(time.Duration(mrand.ExpFloat64() / cfg.rate * float64(time.Second)))
		if next.After(end) {
			break
		}
		if dt := time.Until(next); dt > 0 {
			select {
			case <-ctx.Done():
				wg.Wait()
				return n
			case <-time.After(dt):
			}
		}
		d := l.desks[mrand.IntN(len(l.desks))]
		double := mrand.Float64() < cfg.doubleFrac
		wg.Add(1)
		n++
		go func() { defer wg.Done(); d.scan(ctx, double) }()
	}
	time.Sleep(time.Until(end))
	wg.Wait()
	return n
}

// feedHead pages through the feed from after to its end.
func (l *load) feedHead(ctx context.Context, after int64) (int64, error) {
	c := l.desks[0].c
	for {
		ch, next, err := c.Changes(ctx, l.ring, after, 0)
		if isCompacted(err) { // only a snapshot knows where the feed goes on
			page, err := c.Snapshot(ctx, l.ring, 0, 0)
			if err != nil {
				return after, err
			}
			after = max(after, page.Position)
			continue
		}
		if err != nil || len(ch) == 0 {
			return after, err
		}
		after = next
	}
}

// catchUp waits until every desk's cursor reached the head of the feed.
func (l *load) catchUp(ctx context.Context, deadline time.Time) (int64, bool) {
	head := l.head0
	for {
		h, err := l.feedHead(ctx, head)
		if err == nil {
			head = h
			behind := 0
			for _, d := range l.desks {
				d.mu.Lock()
				if d.cursor < head {
					behind++
				}
				d.mu.Unlock()
			}
			if behind == 0 {
				return head, true
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return head, false
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// redeemPositions maps each label redeemed during the run to the feed
// position of its redemption, reading the feed from where the desks began.
func (l *load) redeemPositions(ctx context.Context) (map[string]int64, error) {
	out := make(map[string]int64, len(l.online))
	after := l.head0
	c := l.desks[0].c
	for {
		ch, next, err := c.Changes(ctx, l.ring, after, 0)
		if isCompacted(err) {
			return nil, errors.New("the server compacted the feed during the run: the convergence lag cannot be measured")
		}
		if err != nil {
			return nil, err
		}
		if len(ch) == 0 {
			return out, nil
		}
		for _, x := range ch {
			if _, seen := out[x.Code]; x.Kind == protocol.KindRedeem && !seen {
				out[x.Code] = x.Seq
			}
		}
		after = next
	}
}

func waitTimeout(wg *sync.WaitGroup, d time.Duration) bool {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}
