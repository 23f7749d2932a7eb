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
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"qrdesk/app"
	"qrdesk/deskclient"
	"qrdesk/protocol"
)

// load is one run: the desks, the labels in play and what was measured.
type load struct {
	cfg   config
	log   *slog.Logger
	runID string
	keys  app.Keys
	ring  string
	desks []*desk
	sites []*site // the desks by site, as their enrolments named it
	// crossFrac is the share of scans of another site's label (0 with
	// one site).
	crossFrac float64
	start     time.Time // the desks came online; every recorded time is since then
	head0     int64     // the feed's head when they did

	ending     chan struct{}  // closed when scanning stops
	finalSyncs sync.WaitGroup // desks that have not uploaded everything after it

	feedRequests  atomic.Int64
	feedDelivered atomic.Int64

	labelMu   sync.RWMutex
	labelSite map[string]int // every label issued: the index of its site in sites
	// heldBy is, for each site, the other sites' labels a desk of it
	// scanned: their changes reach that site too (a copy follows its
	// label).
	heldBy map[int]map[string]bool

	mu        sync.Mutex
	stats     stats
	latencies []time.Duration    // online redeem round trips
	usedBy    [][]usedLabel      // by site, labels the server recorded as used: for double uses, and nothing lost
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

	// Acknowledged is the redemptions the server answered redeemed, online
	// or uploaded; Lost those of them missing from their label's site's
	// feed at the end.
	Acknowledged int `json:"redemptions_acknowledged"`
	Lost         int `json:"redemptions_lost"`

	// Scans of a label of another site (counted in the above too).
	CrossSite           int `json:"cross_site_scans"`
	CrossOnline         int `json:"cross_site_online"`          // decided by the server
	CrossOnlineNamed    int `json:"cross_site_online_named"`    // whose answer named the label's site
	CrossOfflineDecided int `json:"cross_site_offline_decided"` // decided alone (setting decide), uploaded later
	CrossOfflineRefused int `json:"cross_site_offline_refused"` // refused offline (setting refuse): nothing redeemed
	CrossConflicts      int `json:"cross_site_conflicts"`       // double uses decided alone that became conflicts
	// SiteMisnamed is online answers whose site is not the label's (named
	// for a label of the desk's own site, or another or none for a label
	// of another site).
	SiteMisnamed int `json:"site_misnamed"`
	// ForeignChanges is changes a desk received about a label of another
	// site: its feed is its site's only.
	ForeignChanges int `json:"foreign_changes"`
}

// site is the desks of one site.
type site struct {
	name  string
	desks []*desk
}

type usedLabel struct {
	code string
	desk int
}

type onlineRedemption struct {
	code string
	desk int
	site int           // the label's
	at   time.Duration // answered, since the run began
}

func newLoad(cfg config, logw io.Writer) *load {
	id := make([]byte, 3)
	rand.Read(id)
	return &load{cfg: cfg, runID: "L" + hex.EncodeToString(id), ending: make(chan struct{}), labelSite: map[string]int{},
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

// takeLabel picks an unscanned label of the desk's site, or with cross of
// another site: half the time from this desk's own batches, else from
// another desk's of that site (parcels move between desks). A label taken
// is never handed out again but as a deliberate double use. It returns the
// label and its site.
func (l *load) takeLabel(d *desk, cross bool) (string, int) {
	s := d.site
	if cross {
		s = l.otherSite(d.site)
	}
	pool := l.sites[s].desks
	for try := 0; try < 8; try++ {
		from := pool[mrand.IntN(len(pool))]
		if try == 0 && !cross && mrand.IntN(2) == 1 {
			from = d
		}
		from.mu.Lock()
		if n := len(from.stock); n > 0 {
			label := from.stock[n-1]
			from.stock = from.stock[:n-1]
			from.mu.Unlock()
			return label, s
		}
		from.mu.Unlock()
	}
	return "", s
}

// otherSite picks a site other than s at random (there are at least two).
func (l *load) otherSite(s int) int {
	k := mrand.IntN(len(l.sites) - 1)
	if k >= s {
		k++
	}
	return k
}

// usedElsewhere picks a label the server recorded as used at another desk:
// one of the desk's site, or with cross of another site.
func (l *load) usedElsewhere(d *desk, cross bool) (string, int) {
	s := d.site
	if cross {
		s = l.otherSite(d.site)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	used := l.usedBy[s]
	for try := 0; try < 8 && len(used) > 0; try++ {
		u := used[mrand.IntN(len(used))]
		if u.desk != d.i {
			return u.code, s
		}
	}
	return "", s
}

// addLabels records the site of labels a desk of site s issued.
func (l *load) addLabels(labels []string, s int) {
	l.labelMu.Lock()
	for _, label := range labels {
		l.labelSite[label] = s
	}
	l.labelMu.Unlock()
}

// hold records that a desk of site scanned another site's label: from
// then on the label's changes reach site too.
func (l *load) hold(site int, label string) {
	l.labelMu.Lock()
	defer l.labelMu.Unlock()
	if l.heldBy == nil {
		l.heldBy = map[int]map[string]bool{}
	}
	if l.heldBy[site] == nil {
		l.heldBy[site] = map[string]bool{}
	}
	l.heldBy[site][label] = true
}

// held reports whether a desk of site scanned label.
func (l *load) held(site int, label string) bool {
	l.labelMu.RLock()
	defer l.labelMu.RUnlock()
	return l.heldBy[site][label]
}

// siteOf is the site of a label issued in the run, or -1.
func (l *load) siteOf(label string) int {
	l.labelMu.RLock()
	defer l.labelMu.RUnlock()
	if s, ok := l.labelSite[label]; ok {
		return s
	}
	return -1
}

// uploaded checks the server's answer to an event the desk decided alone:
// every one is accepted, as a redemption, or as a conflict when it was a
// deliberate double use.
func (l *load) uploaded(d *desk, q queued, r protocol.Result) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := &l.stats
	if !r.Duplicate {
		s.Recorded++
	}
	switch {
	case r.Outcome == protocol.OutcomeRedeemed && !q.double:
		s.Accepted++
		s.OfflineRedeemed++
		s.Acknowledged++
		l.usedBy[q.site] = append(l.usedBy[q.site], usedLabel{code: q.ev.Code, desk: d.i})
		return
	case r.Outcome == protocol.OutcomeConflict && q.double:
		s.Accepted++
		s.Conflicts++
		if q.cross {
			s.CrossConflicts++
		}
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
	transport, err := l.setUp(ctx)
	if err != nil {
		return nil, err
	}
	defer transport.CloseIdleConnections()
	proc := newProcWatch(cfg, l.log)
	var floor *floorReport
	if cfg.pgbench {
		if floor, err = l.measureFloor(ctx); err != nil {
			return nil, fmt.Errorf("the pgbench floor: %w", err)
		}
	}
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
	behind := l.catchUp(drainCtx, deadline)
	cancelDrain()
	if behind > 0 {
		l.problemf(true, "after %v of drain some desks of %d sites had not caught up with their site's feed", cfg.drain, behind)
	}
	drained := time.Since(drainStart)
	stopLives()
	lives.Wait()
	l.log.Info("drained", "took", drained.Round(time.Millisecond))

	l.countOutboxes()
	walk, err := l.walkFeeds(ctx)
	if err != nil {
		l.problemf(true, "read the feed: %v", err)
	}
	dbEnd, dbErr2 := dbSize(ctx, cfg.db)
	rep := l.report(window, scanned, drained, walk, proc)
	if floor != nil {
		// three significant digits: a light test run (30/s against a floor of
		// 6,500 TPS) must not round to a ratio of 0
		ratio := float64(l.stats.OnlineRedeemed) / window.Seconds() / floor.TPS
		floor.Ratio, _ = strconv.ParseFloat(strconv.FormatFloat(ratio, 'g', 3, 64), 64)
		rep.Floor = floor
	}
	if dbErr == nil && dbErr2 == nil {
		rep.setDatabase(dbStart, dbEnd)
	} else if cfg.db != "" {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("database size not measured: %v", errors.Join(dbErr, dbErr2)))
	}
	return rep, nil
}

// setUp checks the server answers, enrols the desks, uploads each desk's
// batch and puts every desk at the head of the feed. The transport it
// returns is the desks' shared one: the caller closes it at the end.
func (l *load) setUp(ctx context.Context) (*http.Transport, error) {
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
	setupStart := time.Now()
	var stations []station
	if cfg.tokens != "" {
		stations, err = readTokens(cfg.tokens, cfg.desks)
	} else {
		stations, err = enrol(ctx, cfg.db, l.runID, cfg.desks, l.keys, cfg.sites, cfg.crossOffline)
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
	hc := &http.Client{Transport: transport, Timeout: 30 * time.Second}
	l.desks = make([]*desk, len(stations))
	for i, st := range stations {
		c := deskclient.New(cfg.server, st.token)
		c.HTTP = hc
		l.desks[i] = &desk{l: l, i: i, c: c, learned: map[string]int{}}
	}
	// The first desk binds the key ring; then the others, in parallel.
	// Each learns its site from the server's answer, as a desk does.
	if _, err := l.desks[0].c.Enrol(ctx, l.ring, nil); err != nil {
		return nil, fmt.Errorf("enrol the first desk: %w", err)
	}
	if err := parallel(len(l.desks), 16, func(i int) error {
		en, err := l.desks[i].c.Enrol(ctx, l.ring, nil)
		l.desks[i].enrolled(en, true)
		return err
	}); err != nil {
		return nil, fmt.Errorf("enrol: %w", err)
	}
	l.groupSites()
	if cfg.tokens == "" && len(l.sites) != cfg.sites {
		return nil, fmt.Errorf("the desks were enrolled in %d sites, but the server's enrolments name %d: is it a server before sites?", cfg.sites, len(l.sites))
	}
	if len(l.sites) > 1 {
		l.crossFrac = cfg.crossFrac
	}
	// Each desk's batch: enough for its share of the scans and half again.
	perDesk := int(math.Ceil(cfg.rate*cfg.duration.Seconds()/float64(len(l.desks))*1.5)) + 5
	if err := parallel(len(l.desks), 8, func(i int) error {
		d := l.desks[i]
		labels, err := newLabels(l.keys, perDesk)
		if err != nil {
			return err
		}
		d.stock = labels
		l.addLabels(labels, d.site)
		return uploadLabels(ctx, d.c, l.ring, labels)
	}); err != nil {
		return nil, fmt.Errorf("upload batches: %w", err)
	}
	// Desks start at the head of the feed: the batches just uploaded are
	// the morning's, not part of the measurement. Positions are one
	// sequence for all sites: the highest head of a site is the feed's.
	var head int64
	for _, s := range l.sites {
		h, err := l.feedHead(ctx, s.desks[0].c, 0)
		if err != nil {
			return nil, fmt.Errorf("read the feed: %w", err)
		}
		head = max(head, h)
	}
	l.head0 = head
	for _, d := range l.desks {
		d.cursor = head
	}
	l.log.Info("set up", "desks", len(l.desks), "sites", len(l.sites), "labels", perDesk*len(l.desks), "feed_head", head, "took", time.Since(setupStart).Round(time.Millisecond))
	return transport, nil
}

// countOutboxes counts what the desks still hold, decided offline, after
// the drain: each such event is one the server never heard of.
func (l *load) countOutboxes() {
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
		cross := mrand.Float64() < l.crossFrac
		wg.Add(1)
		n++
		go func() { defer wg.Done(); d.scan(ctx, double, cross) }()
	}
	time.Sleep(time.Until(end))
	wg.Wait()
	return n
}

// groupSites puts the desks in their sites, in the order the sites first
// appear (the order they were made in: desks were enrolled in turn).
func (l *load) groupSites() {
	index := map[string]int{}
	for _, d := range l.desks {
		k, ok := index[d.siteName]
		if !ok {
			k = len(l.sites)
			index[d.siteName] = k
			l.sites = append(l.sites, &site{name: d.siteName})
		}
		d.site = k
		l.sites[k].desks = append(l.sites[k].desks, d)
	}
	l.usedBy = make([][]usedLabel, len(l.sites))
}

// feedHead pages through the feed a desk reads (its site's), from after to
// its end.
func (l *load) feedHead(ctx context.Context, c *deskclient.Client, after int64) (int64, error) {
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

// catchUp waits until every desk's cursor reached the head of its site's
// feed, and returns how many sites have desks that did not by the
// deadline. A site whose desks are there is looked at again only once all
// are, in case a late upload moved its head. The sites are read side by
// side: a feed read waits for the server's next paced refresh (up to 250
// ms with 1,000 desks following), and 100 sites read one after the other
// took longer than the drain, though every desk had caught up.
func (l *load) catchUp(ctx context.Context, deadline time.Time) int {
	heads := make([]int64, len(l.sites))
	done := make([]bool, len(l.sites))
	for k := range heads {
		heads[k] = l.head0
	}
	// look reads the head of each site not done (all: every site) at once.
	look := func(all bool) (moved int) {
		var wg sync.WaitGroup
		var mu sync.Mutex
		sem := make(chan struct{}, 64)
		for k, s := range l.sites {
			if done[k] && !all {
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				h, err := l.feedHead(ctx, s.desks[0].c, heads[k])
				mu.Lock()
				defer mu.Unlock()
				switch {
				case all:
					if err != nil || h != heads[k] {
						done[k] = false
						moved++
					}
				case err == nil:
					heads[k] = h
					done[k] = true
					for _, d := range s.desks {
						d.mu.Lock()
						done[k] = done[k] && d.cursor >= h
						d.mu.Unlock()
					}
				}
			}()
		}
		wg.Wait()
		return moved
	}
	for {
		look(false)
		left := 0
		for k := range l.sites {
			if !done[k] {
				left++
			}
		}
		if left == 0 {
			moved := look(true) // the last look at every site
			if moved == 0 {
				return 0
			}
			left = moved
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return left
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// feedWalk is what the feeds held after the desks began, read back at the
// end, site by site, as a desk of the site reads it.
type feedWalk struct {
	// positions holds, for each site (by index in load.sites), the feed
	// position of each redemption its feed holds: of its own labels, and
	// of the other sites' labels its desks hold a copy of. A label's copy
	// is a change of its own at a position of its own (after the label's
	// change), so the position of a redemption in one site's feed says
	// nothing of another's.
	positions []map[string]int64
	// changes is the changes made during the run; deliveries what every
	// desk of the sites they went to receiving each once would be.
	changes    int
	deliveries int64
}

func (l *load) walkFeeds(ctx context.Context) (*feedWalk, error) {
	w := &feedWalk{positions: make([]map[string]int64, len(l.sites))}
	seen := map[int64]bool{}
	for k, s := range l.sites {
		positions := map[string]int64{}
		w.positions[k] = positions
		after := l.head0
		c := s.desks[0].c
		for {
			ch, next, err := c.Changes(ctx, l.ring, after, 0)
			if isCompacted(err) {
				return nil, errors.New("the server compacted the feed during the run: the convergence lag cannot be measured")
			}
			if err != nil {
				return nil, err
			}
			if len(ch) == 0 {
				break
			}
			for _, x := range ch {
				w.deliveries += int64(len(s.desks))
				if !seen[x.Seq] { // a deployment-wide change is in every site's feed
					seen[x.Seq] = true
					w.changes++
				}
				if _, ok := positions[x.Code]; x.Kind == protocol.KindRedeem && !ok {
					positions[x.Code] = x.Seq
				}
			}
			after = next
		}
	}
	return w, nil
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
