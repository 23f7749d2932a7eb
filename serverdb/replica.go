package serverdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"qrdesk/central"
	"qrdesk/protocol"
)

// Replica serves the desks' download path — the change feed and the
// snapshot a desk starts over from — from a streaming read replica of the
// PostgreSQL primary (qrdesk-server --replica-url). Everything else
// (writes, online redemptions, enrolment, the dashboard, anything that
// must read its own write) stays on the primary.
//
// Why the replica's feed never has a hole: a change's position is given
// on the primary after its transaction committed, by one placing at a time
// (placeChanges), each placing one transaction that gives every position
// above the ones before. A standby replays transactions in the primary's
// commit order, so at any moment it holds every placing up to some point
// and none after: every position up to its head, none beyond it. It is
// behind the primary, never different from it. A change committed on the
// primary but not placed yet has no position on either.
//
// That holds for one standby, whose state only moves forward: the address
// names one host (OpenReplica refuses several), and a balancer in front
// of several standbys would break it the same way.
//
// The rules a read follows:
//   - The primary places first, as a read of the primary does, and the
//     read waits up to CatchUp for the replica to replay that placing: a
//     desk's long poll, woken by a write, finds it on the replica.
//   - A cursor beyond the replica's head (given by the primary while the
//     replica was away) is answered with no changes: the desk waits, its
//     cursor stays. Beyond the primary's head too, the feed was reset, as
//     the primary answers. The replica never hands out a position it has
//     not applied.
//   - The replica down (an error, or no answer within Timeout): the
//     primary answers, and the replica is tried again after RetryAfter
//     (doubling while it stays down, up to a minute).
//   - The replica lacking positions the primary placed more than MaxLag
//     ago: the primary answers until the replica is back within MaxLag/2.
//   - A snapshot's first page is at the replica's head; a later page is
//     read on the replica only when its head is at least the first page's
//     position (the desk names it): otherwise on the primary.
//
// A Replica is safe for concurrent use.
type Replica struct {
	p, r *DB // the primary; the replica's copy (never places, never writes)
	opt  ReplicaOptions

	mu       sync.Mutex
	verified bool  // the replica was checked to be a copy of the primary
	wrong    error // it is not: never used
	up       bool
	// probing: a read is trying the replica again after it was down (since
	// probeSince; one that hung up without an answer is forgotten after
	// Timeout).
	probing    bool
	probeSince time.Time
	retryAt    time.Time
	retryIn    time.Duration
	lagging    bool      // beyond MaxLag: reads go to the primary
	probeAt    time.Time // when a read tries the replica again while lagging
	// heads are the primary's feed heads as this process saw them, above
	// the replica's head, oldest first: the first says since when the
	// replica has lacked a position the primary had placed.
	heads       []headSeen
	primaryHead int64
	replicaHead int64
	reads       map[string]int64
	behind      int64
}

type headSeen struct {
	head int64
	at   time.Time
}

// ReplicaOptions tune a Replica; zero fields take the defaults.
type ReplicaOptions struct {
	// MaxLag is how long the replica may lack positions the primary placed
	// before the primary answers instead (default 5 s).
	MaxLag time.Duration
	// CatchUp is how long a feed read waits for the replica to replay the
	// placing the read made on the primary (default 100 ms).
	CatchUp time.Duration
	// Timeout bounds each read on the replica (default 3 s).
	Timeout time.Duration
	// RetryAfter is the first pause before a replica that failed is tried
	// again (default 1 s), and how often a lagging replica is looked at.
	RetryAfter time.Duration
	// Log gets the replica's changes of state (down, up, lagging, caught
	// up), once each.
	Log *slog.Logger
}

// Defaults of ReplicaOptions.
const (
	DefaultReplicaMaxLag = 5 * time.Second
	replicaCatchUp       = 100 * time.Millisecond
	replicaTimeout       = 3 * time.Second
	replicaRetry         = time.Second
	replicaRetryMax      = time.Minute
	catchUpStep          = 5 * time.Millisecond
	// maxHeadsSeen bounds the primary heads kept; the oldest (the lag's
	// start) is kept, the next ones dropped.
	maxHeadsSeen = 4096
)

// NotACopy is OpenReplica's refusal of a database that is not a streaming
// copy of the primary's.
type NotACopy struct{ Reason string }

func (e *NotACopy) Error() string {
	return "the read replica is not a copy of the primary's database: " + e.Reason
}

// OpenReplica opens the read replica at url for the feed reads of
// primary, a PostgreSQL database. It refuses a database that is not a
// copy of the primary's (another cluster's system identifier, or another
// database name): its feed would be another deployment's. A replica that
// does not answer now is no error: the primary answers until it does.
func OpenReplica(ctx context.Context, primary *DB, url string, opt ReplicaOptions) (*Replica, error) {
	if !primary.e.postgres {
		return nil, errors.New("a read replica needs a PostgreSQL database (--db postgres://…), not a SQLite file")
	}
	if !IsPostgres(url) {
		return nil, errors.New("the read replica's address must be a postgres:// URL")
	}
	cfg, err := pgconn.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("read replica address: %w", err)
	}
	if len(cfg.Fallbacks) > 0 {
		// Two standbys are at two different points: a read whose rows come
		// from one and whose floor or head from another could hand out a
		// hole, and a snapshot page could be older than its position.
		return nil, errors.New("the read replica's address must name one standby (one host), not several")
	}
	db, err := sql.Open("pgx", url)
	if err != nil {
		return nil, fmt.Errorf("read replica address: %w", err)
	}
	db.SetMaxOpenConns(32)
	db.SetMaxIdleConns(32)
	if opt.MaxLag <= 0 {
		opt.MaxLag = DefaultReplicaMaxLag
	}
	if opt.CatchUp <= 0 {
		opt.CatchUp = replicaCatchUp
	}
	if opt.Timeout <= 0 {
		opt.Timeout = replicaTimeout
	}
	if opt.RetryAfter <= 0 {
		opt.RetryAfter = replicaRetry
	}
	if opt.Log == nil {
		opt.Log = slog.New(slog.DiscardHandler)
	}
	x := &Replica{p: primary, r: &DB{e: &engine{db: db, postgres: true}, path: url, replica: true}, opt: opt, reads: map[string]int64{}}
	vctx, cancel := context.WithTimeout(ctx, opt.Timeout)
	defer cancel()
	if err := x.verify(vctx); err != nil {
		var nc *NotACopy
		if errors.As(err, &nc) {
			db.Close()
			return nil, err
		}
		x.fail(err)
	}
	return x, nil
}

// Close closes the replica's connections.
func (x *Replica) Close() error { return x.r.e.db.Close() }

var _ central.FeedReader = (*Replica)(nil)

// verify checks that the replica is a physical copy of the primary: the
// same system identifier (a standby made by pg_basebackup keeps its
// primary's) and the same database.
func (x *Replica) verify(ctx context.Context) error {
	const q = `SELECT system_identifier, current_database() FROM pg_control_system()`
	var pid, rid int64
	var pname, rname string
	if err := x.p.e.queryRow(ctx, q).Scan(&pid, &pname); err != nil {
		return err
	}
	if err := x.r.e.queryRow(ctx, q).Scan(&rid, &rname); err != nil {
		return err
	}
	var wrong error
	switch {
	case pid != rid:
		wrong = &NotACopy{Reason: fmt.Sprintf("its PostgreSQL system identifier is %d, the primary's %d (make it with pg_basebackup from the primary)", rid, pid)}
	case pname != rname:
		wrong = &NotACopy{Reason: fmt.Sprintf("it names database %q, the primary %q", rname, pname)}
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if wrong != nil {
		x.wrong = wrong
		x.opt.Log.Error("the read replica is not used: " + wrong.Error())
		return wrong
	}
	x.verified = true
	if x.retryIn == 0 {
		x.up = true // it answered: reads may go to it
	}
	return nil
}

// ready reports whether a read may try the replica now, and if not why
// ("down", "lagging"). A replica not verified yet (down at start) is
// verified first.
func (x *Replica) ready(ctx context.Context) (bool, string) {
	x.mu.Lock()
	now := time.Now()
	switch {
	case x.wrong != nil:
		x.mu.Unlock()
		return false, "down"
	case !x.up && ((x.probing && now.Sub(x.probeSince) < x.opt.Timeout) || now.Before(x.retryAt)):
		x.mu.Unlock()
		return false, "down"
	case !x.up:
		// This read tries it; the others keep to the primary meanwhile.
		x.probing, x.probeSince = true, now
	case x.lagging && now.Before(x.probeAt):
		x.mu.Unlock()
		return false, "lagging"
	}
	verified := x.verified
	x.mu.Unlock()
	if !verified {
		vctx, cancel := context.WithTimeout(ctx, x.opt.Timeout)
		defer cancel()
		if err := x.verify(vctx); err != nil {
			x.fail(err)
			return false, "down"
		}
	}
	return true, ""
}

// fail records that the replica did not answer: reads go to the primary
// until it is tried again.
func (x *Replica) fail(err error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.up || x.retryIn == 0 {
		x.opt.Log.Warn("the read replica does not answer: the desks' feed reads go to the primary", "error", err.Error())
	}
	x.up, x.probing = false, false
	x.retryIn = min(max(2*x.retryIn, x.opt.RetryAfter), replicaRetryMax)
	x.retryAt = time.Now().Add(x.retryIn)
}

// answered records that the replica answered.
func (x *Replica) answered() {
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.up && x.retryIn > 0 {
		x.opt.Log.Info("the read replica answers again: the desks' feed reads go to it")
	}
	x.up, x.probing, x.retryIn = true, false, 0
}

// observe records the primary's head hp (read before the replica's) and
// the replica's head hr, and reports whether the replica may serve: it
// lacks no position the primary had placed more than MaxLag ago (once
// beyond, until back within MaxLag/2).
func (x *Replica) observe(hp, hr int64) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	now := time.Now()
	if n := len(x.heads); hp > hr && (n == 0 || hp > x.heads[n-1].head) {
		if n >= maxHeadsSeen {
			x.heads = append(x.heads[:1], x.heads[2:]...)
		}
		x.heads = append(x.heads, headSeen{head: hp, at: now})
	}
	x.primaryHead, x.replicaHead = max(x.primaryHead, hp), hr
	i := 0
	for i < len(x.heads) && x.heads[i].head <= hr {
		i++
	}
	x.heads = x.heads[i:]
	lag := x.lagLocked(now)
	switch {
	case !x.lagging && lag > x.opt.MaxLag:
		x.lagging = true
		x.opt.Log.Warn("the read replica is too far behind: the desks' feed reads go to the primary", "lag_seconds", lag.Seconds(), "max_lag_seconds", x.opt.MaxLag.Seconds())
	case x.lagging && lag <= x.opt.MaxLag/2:
		x.lagging = false
		x.opt.Log.Info("the read replica has caught up: the desks' feed reads go to it", "lag_seconds", lag.Seconds())
	}
	if x.lagging {
		x.probeAt = now.Add(x.opt.RetryAfter)
	}
	return !x.lagging
}

// lagLocked is how long the replica has lacked a position the primary
// had placed (under x.mu).
func (x *Replica) lagLocked(now time.Time) time.Duration {
	if len(x.heads) == 0 {
		return 0
	}
	return now.Sub(x.heads[0].at)
}

func (x *Replica) count(where string) {
	x.mu.Lock()
	x.reads[where]++
	x.mu.Unlock()
}

// Changes and SiteChanges read the feed on the replica (Replica's rules).
func (x *Replica) Changes(ctx context.Context, after int64, limit int) ([]protocol.Change, error) {
	return x.feed(ctx, allSites, after, limit)
}

func (x *Replica) SiteChanges(ctx context.Context, site, after int64, limit int) ([]protocol.Change, error) {
	return x.feed(ctx, site, after, limit)
}

func (x *Replica) feed(ctx context.Context, site, after int64, limit int) ([]protocol.Change, error) {
	hp, err := x.p.placedHead(ctx)
	if err != nil {
		return nil, err
	}
	if ok, why := x.ready(ctx); !ok {
		x.count("primary_" + why)
		return x.p.placedChanges(ctx, site, after, limit)
	}
	deadline := time.Now().Add(x.opt.CatchUp)
	for {
		rctx, cancel := context.WithTimeout(ctx, x.opt.Timeout)
		out, floor, hr, err := x.r.readFeed(rctx, site, after, limit, true)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			x.fail(err)
			x.count("primary_down")
			return x.p.placedChanges(ctx, site, after, limit)
		}
		x.answered()
		if !x.observe(hp, hr) {
			x.count("primary_lagging")
			return x.p.placedChanges(ctx, site, after, limit)
		}
		if after < floor {
			x.count("replica")
			return nil, central.ErrFeedCompacted
		}
		if len(out) < limit && hr < hp && time.Now().Before(deadline) {
			// The replica has not replayed the placing yet: a moment more.
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(catchUpStep):
			}
			continue
		}
		x.count("replica")
		if after > hr {
			if after > hp {
				return nil, central.ErrFeedReset // as the primary answers
			}
			// The desk is ahead of the replica (it read the primary
			// while the replica was away or behind): it waits.
			x.mu.Lock()
			x.behind++
			x.mu.Unlock()
		}
		return out, nil
	}
}

// FeedTag reads the tag on the replica; a position the replica does not
// hold (not applied yet, or compacted) is asked of the primary, which
// says whether the feed was reset.
func (x *Replica) FeedTag(ctx context.Context, pos int64) (string, bool, error) {
	if ok, _ := x.ready(ctx); ok {
		rctx, cancel := context.WithTimeout(ctx, x.opt.Timeout)
		tag, held, err := x.r.FeedTag(rctx, pos)
		cancel()
		switch {
		case err == nil && held:
			x.answered()
			return tag, true, nil
		case err == nil:
			x.answered()
		case ctx.Err() != nil:
			return "", false, ctx.Err()
		default:
			x.fail(err)
		}
	}
	return x.p.FeedTag(ctx, pos)
}

// FeedBounds are the replica's while it serves, else the primary's.
func (x *Replica) FeedBounds(ctx context.Context) (floor, head int64, err error) {
	if ok, _ := x.ready(ctx); ok {
		rctx, cancel := context.WithTimeout(ctx, x.opt.Timeout)
		floor, head, err = x.r.FeedBounds(rctx)
		cancel()
		if err == nil {
			x.answered()
			return floor, head, nil
		}
		if ctx.Err() != nil {
			return 0, 0, ctx.Err()
		}
		x.fail(err)
	}
	return x.p.FeedBounds(ctx)
}

// Snapshot reads a snapshot page on the replica: the first page at the
// replica's head, a later one only when the replica holds the first
// page's position (else the primary, whose state is newer than any
// position it gave).
func (x *Replica) Snapshot(ctx context.Context, site int64, station string, afterID, position int64, limit int) (protocol.Snapshot, error) {
	if afterID > 0 && position <= 0 {
		// A desk of an older release does not say where its snapshot is:
		// the replica may be older than the page before, read elsewhere.
		x.count("primary_older_desk")
		return x.p.Snapshot(ctx, site, station, afterID, 0, limit)
	}
	if ok, why := x.ready(ctx); !ok {
		x.count("primary_" + why)
		return x.p.Snapshot(ctx, site, station, afterID, 0, limit)
	}
	rctx, cancel := context.WithTimeout(ctx, x.opt.Timeout)
	defer cancel()
	var snap protocol.Snapshot
	var err error
	if afterID > 0 {
		// The head first: the state read after it is at least as new.
		var hr int64
		if _, hr, err = x.r.FeedBounds(rctx); err == nil && hr < position {
			x.count("primary_behind")
			return x.p.Snapshot(ctx, site, station, afterID, 0, limit)
		}
	}
	if err == nil {
		snap, err = x.r.Snapshot(rctx, site, station, afterID, position, limit)
	}
	if err != nil {
		if ctx.Err() != nil {
			return snap, ctx.Err()
		}
		x.fail(err)
		x.count("primary_down")
		return x.p.Snapshot(ctx, site, station, afterID, 0, limit)
	}
	x.answered()
	x.count("replica")
	return snap, nil
}

// ReplicaStatus asks both databases now (a few cheap queries: the WAL
// positions, the feed heads, the replica's replay state) and says how
// far behind the replica is and where the reads went.
func (x *Replica) ReplicaStatus(ctx context.Context) central.ReplicaStatus {
	st := central.ReplicaStatus{LagBytes: -1}
	var plsn string
	var hp int64
	perr := x.p.e.queryRow(ctx, `SELECT pg_current_wal_lsn()::text, `+pgHeadExpr).Scan(&plsn, &hp)
	x.mu.Lock()
	wrong := x.wrong
	x.mu.Unlock()
	if wrong == nil {
		rctx, cancel := context.WithTimeout(ctx, min(x.opt.Timeout, time.Second))
		var recovery bool
		var rlsn, paused string
		var replayed, hr int64
		err := x.r.e.queryRow(rctx, `SELECT pg_is_in_recovery(), COALESCE(pg_last_wal_replay_lsn()::text, ''),
			CASE WHEN pg_is_in_recovery() THEN pg_get_wal_replay_pause_state() ELSE 'not paused' END,
			COALESCE(CAST(EXTRACT(EPOCH FROM pg_last_xact_replay_timestamp()) AS BIGINT), 0), `+pgHeadExpr).
			Scan(&recovery, &rlsn, &paused, &replayed, &hr)
		cancel()
		if err != nil {
			if ctx.Err() == nil {
				x.fail(err)
			}
		} else {
			x.answered()
			st.Up, st.ReplayPaused, st.LastReplay = true, paused != "not paused", replayed
			if perr == nil {
				x.observe(hp, hr)
				if a, okA := parseLSN(plsn); okA && recovery {
					if b, okB := parseLSN(rlsn); okB {
						st.LagBytes = max(int64(a)-int64(b), 0)
					}
				}
			}
		}
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	switch {
	case x.wrong != nil:
		st.Up, st.Error = false, "not a copy of the primary's database"
	case !st.Up:
		st.Error = "does not answer"
	}
	st.Serving = st.Up && x.verified && !x.lagging
	st.LagSeconds = x.lagLocked(time.Now()).Seconds()
	st.BehindPositions = max(x.primaryHead-x.replicaHead, 0)
	st.Reads = make(map[string]int64, len(x.reads))
	for k, v := range x.reads {
		st.Reads[k] = v
	}
	st.Behind = x.behind
	return st
}

// parseLSN reads a WAL position as PostgreSQL prints it ("16/B374D848").
func parseLSN(s string) (uint64, bool) {
	hi, lo, ok := strings.Cut(s, "/")
	if !ok {
		return 0, false
	}
	h, err1 := strconv.ParseUint(hi, 16, 32)
	l, err2 := strconv.ParseUint(lo, 16, 32)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return h<<32 | l, true
}

// pgHeadExpr is the feed's head on PostgreSQL in one expression (feedHead
// with its floor): the highest position placed, or the floor above it, or
// the head of the database a restore replaced (feedresume.go) above both.
const pgHeadExpr = `GREATEST(COALESCE((SELECT max(pos) FROM changes), 0),
	COALESCE((SELECT CAST(value AS BIGINT) FROM deployment WHERE key = 'feed_floor'), 0),
	COALESCE((SELECT CAST(value AS BIGINT) FROM deployment WHERE key = 'feed_resume'), 0))`

// placedHead places the changes committed so far (PostgreSQL) and returns
// the feed's head after: every change committed before the call has a
// position at or below it.
func (c *DB) placedHead(ctx context.Context) (int64, error) {
	if err := c.placeChanges(ctx); err != nil {
		return 0, err
	}
	var head int64
	err := c.e.queryRow(ctx, `SELECT `+pgHeadExpr).Scan(&head)
	return head, err
}
