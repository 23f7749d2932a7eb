package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"qrdesk/app"
	"qrdesk/deskclient"
	"qrdesk/protocol"
)

// desk is one simulated desk. It keeps in memory what a desk's database
// would hold for this test: the labels of its batches nobody has scanned
// yet, its outbox, its feed cursor and what it learned from the feed.
type desk struct {
	l        *load
	i        int
	c        *deskclient.Client
	siteName string // as the server's enrolment named it ("" from a server before sites)
	site     int    // its index in load.sites

	scanMu sync.Mutex // one scan at a time, as at a real desk
	syncMu sync.Mutex // one sync at a time: the outbox is sent in order

	mu        sync.Mutex
	stock     []string // its own labels, uploaded and not scanned yet
	online    bool     // the network is up (the simulated outage is over)
	downUntil time.Time
	outbox    []queued
	events    int   // event ids given so far
	cursor    int64 // feed position
	learned   map[string]int
	receipts  []receipt // when the cursor moved: for the convergence lag
	periods   []period  // when the desk followed the feed
	// crossOffline is the deployment's rule for a label of another site
	// scanned offline, as the last enrolment announced it.
	crossOffline string

	followStop func()
	followDone chan struct{}
}

// queued is an event the desk decided alone, waiting for the next sync.
type queued struct {
	ev     protocol.Event
	double bool // a label already used at another desk: the server must say conflict
	cross  bool // a label of another site
	site   int  // the label's
}

// enrolled keeps what the server's enrolment answer says of the desk's
// site (its name only at the first: the run moves no desk) and of the
// deployment's rule for another site's label scanned offline.
func (d *desk) enrolled(en protocol.Enrolment, first bool) {
	if en.Sites == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if first {
		d.siteName = en.Sites.Site
	}
	d.crossOffline = en.Sites.CrossSiteOffline
}

// receipt: at this time (since the run began) the desk's cursor reached cur.
type receipt struct {
	at  time.Duration
	cur int64
}

// period is a time the desk followed the feed, until off once closed (it
// went offline); a period still open at the end lasted to the end.
type period struct {
	on, off time.Duration
	closed  bool
}

func (d *desk) nextEventID() string {
	d.events++
	return fmt.Sprintf("%s-%d-%d", d.l.runID, d.i, d.events)
}

// scan is one scan at this desk: a label from a batch of its site (its own
// or another desk's, as parcels move), or with double set a label another
// desk already redeemed; with cross set, a label of another site. Online,
// the server decides within the online timeout; otherwise the desk decides
// alone and queues the event, as a real desk, or refuses a label of
// another site when the deployment says so.
func (d *desk) scan(ctx context.Context, double, cross bool) {
	d.scanMu.Lock()
	defer d.scanMu.Unlock()
	l := d.l
	var label string
	var labelSite int
	if double {
		label, labelSite = l.usedElsewhere(d, cross)
		double = label != ""
	}
	if label == "" {
		label, labelSite = l.takeLabel(d, cross)
	}
	if label == "" {
		l.count(func(s *stats) { s.NoLabel++ })
		return
	}
	cross = labelSite != d.site
	if cross {
		l.hold(d.site, label) // before the scan: its changes may come back at once
	}
	d.mu.Lock()
	ev := protocol.Event{EventID: d.nextEventID(), Kind: protocol.KindRedeem, Code: label, Operator: "load", At: time.Now().Unix()}
	alone := !d.online || time.Now().Before(d.downUntil)
	// A real desk tells another site's label by its station letter
	// (app.Service.otherSite); the simulated desks' labels carry none,
	// and the desk is told the label's site instead.
	refuse := cross && d.crossOffline == protocol.CrossSiteRefuse
	if alone && !refuse {
		d.queue(ev, double, cross, labelSite)
	}
	d.mu.Unlock()
	l.count(func(s *stats) {
		s.Scans++
		if cross {
			s.CrossSite++
		}
		if alone {
			s.decidedAlone(double, cross, refuse)
		}
	})
	if alone {
		return
	}
	rctx, cancel := context.WithTimeout(ctx, l.cfg.onlineTimeout)
	t0 := time.Now()
	r, err := d.c.Redeem(rctx, l.ring, ev)
	took := time.Since(t0)
	cancel()
	if err != nil && app.IsTransient(err) {
		// No answer in time: the desk decides alone, under the same event
		// id, and keeps deciding alone for a while (app.DefaultOfflineFor);
		// a label of another site as the deployment says.
		d.mu.Lock()
		d.downUntil = time.Now().Add(app.DefaultOfflineFor)
		if !refuse {
			d.queue(ev, double, cross, labelSite)
		}
		d.mu.Unlock()
		l.count(func(s *stats) {
			s.OnlineTimeouts++
			s.decidedAlone(double, cross, refuse)
		})
		l.problemf(false, "online redeem at desk %d: %v", d.i, err)
		return
	}
	if err != nil {
		l.count(func(s *stats) {
			s.OnlineRefused++
			if double {
				s.DoubleUses++
			}
		})
		l.problemf(true, "online redeem at desk %d refused: %v", d.i, err)
		return
	}
	answered := l.since()
	l.mu.Lock()
	l.latencies = append(l.latencies, took)
	s := &l.stats
	if double {
		s.DoubleUses++
	}
	// The answer names the label's site when it is not the desk's.
	wantSite := ""
	if cross {
		wantSite = l.sites[labelSite].name
	}
	if cross {
		s.CrossOnline++
		if r.Site == wantSite {
			s.CrossOnlineNamed++
		}
	}
	misnamed := r.Site != wantSite
	if misnamed {
		s.SiteMisnamed++
	}
	switch {
	case r.Outcome == protocol.OutcomeRedeemed && !double:
		s.OnlineRedeemed++
		s.Acknowledged++
		l.usedBy[labelSite] = append(l.usedBy[labelSite], usedLabel{code: label, desk: d.i})
		l.online = append(l.online, onlineRedemption{code: label, desk: d.i, site: labelSite, at: answered})
	case r.Outcome == protocol.OutcomeAlreadyUsed && double:
		s.OnlineAlreadyUsed++
	default:
		s.Unexpected++
		l.mu.Unlock()
		l.problemf(true, "online redeem of %s at desk %d (double use %v): server said %s %s", label, d.i, double, r.Outcome, r.Reason)
		return
	}
	l.mu.Unlock()
	if misnamed {
		l.problemf(true, "online redeem of %s (site %q) at desk %d (site %q): the answer names site %q, want %q", label, l.sites[labelSite].name, d.i, d.siteName, r.Site, wantSite)
	}
}

// decidedAlone counts a scan the desk decided without the server: queued,
// or refused as a label of another site when the deployment says so (not
// counted as a double use: nothing was decided).
func (s *stats) decidedAlone(double, cross, refuse bool) {
	if refuse {
		s.CrossOfflineRefused++
		return
	}
	s.DecidedOffline++
	if double {
		s.DoubleUses++
		s.DoubleOffline++
	}
	if cross {
		s.CrossOfflineDecided++
	}
}

// queue puts an event decided alone in the outbox (d.mu held).
func (d *desk) queue(ev protocol.Event, double, cross bool, site int) {
	ev.Offline = true
	d.outbox = append(d.outbox, queued{ev: ev, double: double, cross: cross, site: site})
	d.l.count(func(s *stats) { s.Queued++ })
}

// sync is the desk's background sync: enrol, upload a new batch when its
// labels run low, upload the outbox in order, download the feed.
func (d *desk) sync(ctx context.Context) error {
	d.syncMu.Lock()
	defer d.syncMu.Unlock()
	l := d.l
	l.count(func(s *stats) { s.Syncs++ })
	err := d.syncOnce(ctx)
	if err != nil {
		l.count(func(s *stats) { s.SyncErrors++ })
		if ctx.Err() == nil {
			l.problemf(!app.IsTransient(err), "sync at desk %d: %v", d.i, err)
		}
		return err
	}
	d.mu.Lock()
	d.downUntil = time.Time{} // the server answers again: scans go online
	d.mu.Unlock()
	return nil
}

func (d *desk) syncOnce(ctx context.Context) error {
	l := d.l
	en, err := d.c.Enrol(ctx, l.ring, nil)
	if err != nil {
		return err
	}
	d.enrolled(en, false)
	d.mu.Lock()
	low := len(d.stock) < topUpBelow
	d.mu.Unlock()
	if low {
		labels, err := newLabels(l.keys, topUpBatch)
		if err != nil {
			return err
		}
		l.addLabels(labels, d.site)
		if err := uploadLabels(ctx, d.c, l.ring, labels); err != nil {
			return err
		}
		d.mu.Lock()
		d.stock = append(d.stock, labels...)
		d.mu.Unlock()
		l.count(func(s *stats) { s.TopUpBatches++ })
	}
	for {
		d.mu.Lock()
		page := make([]queued, min(len(d.outbox), 500))
		copy(page, d.outbox)
		d.mu.Unlock()
		if len(page) == 0 {
			break
		}
		evs := make([]protocol.Event, len(page))
		for i, q := range page {
			evs[i] = q.ev
		}
		results, err := d.c.Events(ctx, l.ring, evs)
		if err != nil {
			return err
		}
		d.mu.Lock()
		d.outbox = d.outbox[len(page):] // only scans append meanwhile, at the end
		d.mu.Unlock()
		for i, r := range results {
			l.uploaded(d, page[i], r)
		}
	}
	return d.download(ctx, 0)
}

// download brings in the feed after the desk's cursor, as a desk does
// (app.Service.downloadChanges): with wait, the first request is a long
// poll; it goes on until an answer is empty.
func (d *desk) download(ctx context.Context, wait time.Duration) error {
	l := d.l
	for {
		d.mu.Lock()
		after := d.cursor
		d.mu.Unlock()
		var changes []protocol.Change
		var kinds map[string]int
		var codes []string // of the changes, to check they are of this site's labels
		var next int64
		var err error
		if l.cfg.leanFeed {
			kinds, codes, next, err = d.countChanges(ctx, after, wait, len(l.sites) > 1)
		} else {
			changes, next, err = d.c.Changes(ctx, l.ring, after, wait)
			kinds = map[string]int{}
			for _, ch := range changes {
				kinds[string(ch.Kind)]++
				if len(l.sites) > 1 {
					codes = append(codes, ch.Code)
				}
			}
		}
		l.feedRequests.Add(1)
		if isCompacted(err) {
			// The server compacted the feed past this desk's cursor: start
			// over from a snapshot, as a desk does (app.Service.startOver).
			if err := d.startOver(ctx); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		n := 0
		for _, k := range kinds {
			n += k
		}
		if n == 0 {
			return nil
		}
		wait = 0
		at := l.since()
		l.feedDelivered.Add(int64(n))
		d.checkSite(codes)
		d.mu.Lock()
		for kind, k := range kinds {
			d.learned[kind] += k
		}
		if next > d.cursor { // a sync and the follower may both download
			d.cursor = next
			d.receipts = append(d.receipts, receipt{at: at, cur: next})
		}
		d.mu.Unlock()
		if n < app.FeedPage {
			return nil // the last page, as a desk stops
		}
	}
}

// checkSite counts the changes the desk received about labels of another
// site (its feed is its own site's: a change goes to its label's site,
// and to the sites whose desks hold a copy, having scanned it).
func (d *desk) checkSite(codes []string) {
	l := d.l
	for _, code := range codes {
		s := l.siteOf(code)
		if s < 0 || s == d.site || l.held(d.site, code) {
			continue // its site's, one its site holds, or no label issued in the run (the staff list)
		}
		l.count(func(st *stats) { st.ForeignChanges++ })
		l.problemf(true, "desk %d of site %q received a change of label %s of site %q", d.i, d.siteName, code, l.sites[s].name)
	}
}

// startOver reads the server's snapshot page by page and moves the cursor
// to the position it is at.
func (d *desk) startOver(ctx context.Context) error {
	l := d.l
	var position, after int64
	codes := 0
	for first := true; ; first = false {
		page, err := d.c.Snapshot(ctx, l.ring, after, position)
		if err != nil {
			return err
		}
		if first {
			position = page.Position
		}
		codes += len(page.Codes)
		if page.NextID == 0 {
			break
		}
		after = page.NextID
	}
	at := l.since()
	d.mu.Lock()
	d.learned["snapshot code"] += codes
	if position > d.cursor {
		d.cursor = position
		d.receipts = append(d.receipts, receipt{at: at, cur: position})
	}
	d.mu.Unlock()
	l.count(func(s *stats) { s.Snapshots++ })
	return nil
}

func isCompacted(err error) bool {
	var sr *app.ServerRefusal
	return errors.As(err, &sr) && sr.Code == protocol.RefusedFeedCompacted
}

// follow long-polls the feed while ctx lasts, as the window does
// (app.Service.Follow).
func (d *desk) follow(ctx context.Context) {
	pause := time.Second
	for ctx.Err() == nil {
		err := d.download(ctx, app.FollowWait)
		if err == nil {
			pause = time.Second
			continue
		}
		if ctx.Err() != nil {
			return
		}
		d.l.count(func(s *stats) { s.FollowErrors++ })
		d.l.problemf(false, "feed at desk %d: %v", d.i, err)
		select {
		case <-ctx.Done():
		case <-time.After(pause):
		}
		pause = min(pause*2, 30*time.Second)
	}
}

// Batches a desk issues during the run when its labels run low.
const (
	topUpBelow = 3
	topUpBatch = 10
)

// goOnline ends an outage: sync (the outbox goes up), then follow the feed.
func (d *desk) goOnline(ctx context.Context) {
	d.mu.Lock()
	d.online = true
	d.mu.Unlock()
	d.sync(ctx)
	fctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	d.mu.Lock()
	d.periods = append(d.periods, period{on: d.l.since()})
	d.followStop, d.followDone = cancel, done
	d.mu.Unlock()
	go func() { defer close(done); d.follow(fctx) }()
}

// goOffline starts an outage: the follower stops, scans are decided here.
func (d *desk) goOffline() {
	d.mu.Lock()
	d.online = false
	stop, done := d.followStop, d.followDone
	d.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
	d.mu.Lock()
	last := &d.periods[len(d.periods)-1]
	last.off, last.closed = d.l.since(), true
	d.followStop = nil
	d.mu.Unlock()
}

// life runs the desk: online periods with a sync every --sync, outages of
// --offline-len on average (--offline-frac of the time), until the scans
// end; then it comes online, uploads everything and follows until ctx ends.
// ready is called once the desk follows the feed or is in its first outage.
func (d *desk) life(ctx context.Context, ready func()) {
	l, cfg := d.l, d.l.cfg
	rng := rand.New(rand.NewPCG(rand.Uint64(), uint64(d.i)))
	outage := func() time.Duration { return time.Duration((0.5 + rng.Float64()) * float64(cfg.offlineLen)) }
	nextOutage := func() <-chan time.Time {
		if cfg.offlineFrac == 0 {
			return nil
		}
		mean := float64(cfg.offlineLen) * (1 - cfg.offlineFrac) / cfg.offlineFrac
		return time.After(time.Duration(rng.ExpFloat64() * mean))
	}
	ending := false
	// Start in the steady state: --offline-frac of the desks are in an outage.
	startOffline := cfg.offlineFrac > 0 && rng.Float64() < cfg.offlineFrac
	if startOffline {
		ready()
		ending = d.wait(ctx, time.Duration(rng.Float64()*float64(outage())))
	}
	if ctx.Err() != nil {
		return
	}
	d.goOnline(ctx)
	if !startOffline {
		ready()
	}
	// The first sync comes at a random point of the interval, so the desks'
	// syncs are spread evenly.
	tick := time.NewTimer(time.Duration(rng.Float64() * float64(cfg.sync)))
	defer tick.Stop()
	offline := nextOutage()
	for !ending {
		select {
		case <-ctx.Done():
			d.stopFollowing()
			return
		case <-l.ending:
			ending = true
		case <-tick.C:
			d.sync(ctx)
			tick.Reset(cfg.sync)
		case <-offline:
			d.goOffline()
			ending = d.wait(ctx, outage())
			if ctx.Err() != nil {
				return
			}
			d.goOnline(ctx)
			offline = nextOutage()
		}
	}
	// Scanning is over: upload what is left, then follow until the end.
	for ctx.Err() == nil {
		if err := d.sync(ctx); err == nil {
			d.mu.Lock()
			n := len(d.outbox)
			d.mu.Unlock()
			if n == 0 {
				break
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(500 * time.Millisecond):
		}
	}
	l.finalSyncs.Done()
	<-ctx.Done()
	d.stopFollowing()
}

// stopFollowing ends the follower at the end of the run; the period it
// followed stays open (it was online to the end).
func (d *desk) stopFollowing() {
	d.mu.Lock()
	stop, done := d.followStop, d.followDone
	d.followStop = nil
	d.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
}

// wait sleeps for dt of outage; it reports true when scanning ended meanwhile.
func (d *desk) wait(ctx context.Context, dt time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-d.l.ending:
		return true
	case <-time.After(dt):
		return false
	}
}
