package serverdb

import (
	"context"
	"errors"

	"qrdesk/central"
	"qrdesk/protocol"
)

// Group commit for the server's SQLite database. Every durable commit costs
// an fsync (about 0.7 ms here), which capped the server at ~1,400 events a
// second however many desks were waiting. Events that arrive while a commit
// is under way are decided together in the next transaction, each inside
// its own savepoint (so one failing event cannot undo the others), and
// answered only after that transaction is durable.

type groupJob struct {
	ctx   context.Context
	st    central.Station
	ev    protocol.Event
	now   int64
	reply chan groupReply
	// failed is shared by a request's events: once one fails, the ones
	// after it are not decided (errEarlierFailed), as on PostgreSQL. A
	// later event can depend on it (an undo of the redemption before it,
	// refused as event_reused and sent again under a new id). Only the
	// committer reads and sets it.
	failed *bool
}

// errEarlierFailed answers an event not decided because an event before
// it in the same request failed (the desk sends it again).
var errEarlierFailed = errors.New("not decided: an earlier event of the request failed")

type groupReply struct {
	r   protocol.Result
	err error
}

const maxGroup = 128

// groupApplyAll queues a request's events together, in order (the
// committer takes them in that order), so they share commits instead of
// waiting for one each; then collects the answers. An event whose id turned
// out to be known at once (a retry racing the original) is decided again:
// the group path reads the event id first, so the second time it is found.
func (c *DB) groupApplyAll(ctx context.Context, st central.Station, evs []protocol.Event, now int64) ([]protocol.Result, error) {
	c.groupOnce.Do(c.startCommitter)
	jobs := make([]groupJob, len(evs))
	failed := new(bool)
	for i, ev := range evs {
		jobs[i] = groupJob{ctx: ctx, st: st, ev: ev, now: now, reply: make(chan groupReply, 1), failed: failed}
		select {
		case c.jobs <- jobs[i]:
		case <-ctx.Done():
			return nil, ctx.Err() // those queued are decided; a retry gets them as duplicates
		}
	}
	out := make([]protocol.Result, len(evs))
	for i, j := range jobs {
		var rep groupReply
		select {
		case rep = <-j.reply:
		case <-ctx.Done():
			return nil, ctx.Err() // the decision may still be committed; a retry gets it as a duplicate
		}
		if isUniqueAny(rep.err) {
			var again []protocol.Result
			if again, rep.err = c.groupApplyAll(ctx, st, evs[i:i+1], now); rep.err == nil {
				rep.r = again[0]
			}
		}
		if rep.err != nil {
			return out[:i], rep.err
		}
		out[i] = rep.r
	}
	return out, nil
}

// startCommitter makes the queue and starts its committer (once, through
// groupOnce: whoever reads c.jobs goes through groupOnce first).
func (c *DB) startCommitter() {
	c.jobs = make(chan groupJob, 1024)
	go c.committer()
}

// committer runs until the database is closed.
func (c *DB) committer() {
	for first := range c.jobs {
		group := []groupJob{first}
	drain:
		for len(group) < maxGroup {
			select {
			case j, ok := <-c.jobs:
				if !ok {
					break drain
				}
				group = append(group, j)
			default:
				break drain
			}
		}
		c.commitGroup(group)
	}
}

func (c *DB) commitGroup(group []groupJob) {
	replies, err := c.runGroup(group, false)
	if errors.Is(err, errGroupRetry) {
		replies, err = c.runGroup(group, true)
	}
	for i, j := range group {
		if err != nil {
			j.reply <- groupReply{err: err}
		} else {
			j.reply <- replies[i]
		}
	}
}

// errGroupRetry: an event of the group did not go as almost every event
// does (its id was known, or it failed): the group is run again with a
// savepoint around each event.
var errGroupRetry = errors.New("group to run again with savepoints")

// runGroup decides the group's events in one transaction. Without
// savepoints (the first try: two statements fewer per event) any event
// that is not simply new and decided undoes the group (errGroupRetry);
// with them, such an event is undone alone and decided again knowing its
// id, and an event that fails gets its error while the others commit.
func (c *DB) runGroup(group []groupJob, savepoints bool) ([]groupReply, error) {
	replies := make([]groupReply, len(group))
	ctx := context.Background()
	tx, err := c.e.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.done()
	active := map[central.Station]error{} // a request's events come together: one check per station
	for i, j := range group {
		// Not the desk's context: a desk that hangs up must not interrupt
		// the statements of a transaction other desks' events share.
		jctx := context.WithoutCancel(j.ctx)
		err, checked := active[j.st]
		if !checked {
			err = stationActive(jctx, tx.queryRow, j.st)
			active[j.st] = err
		}
		if err != nil {
			if !errors.Is(err, central.ErrRevoked) {
				return nil, err
			}
			replies[i] = groupReply{err: err} // nothing written for it
			continue
		}
		if !savepoints {
			r, err := c.decide(jctx, tx, j.st, j.ev, j.now, false)
			if err != nil || r.Outcome == protocol.OutcomeUnknown {
				return nil, errGroupRetry
			}
			replies[i] = groupReply{r: r}
			continue
		}
		if *j.failed {
			replies[i] = groupReply{err: errEarlierFailed} // nothing written for it
			continue
		}
		if _, err := tx.exec(ctx, "SAVEPOINT ev"); err != nil {
			return nil, err
		}
		r, err := c.decideAssumingNew(jctx, tx, j.st, j.ev, j.now)
		if err != nil {
			// A known id met by a racing insert is decided again alone
			// (groupApplyAll), and the events after it go on.
			*j.failed = !isUniqueAny(err)
			if _, rerr := tx.exec(ctx, "ROLLBACK TO ev"); rerr != nil {
				return nil, rerr
			}
		}
		if _, err := tx.exec(ctx, "RELEASE ev"); err != nil {
			return nil, err
		}
		replies[i] = groupReply{r: r, err: err}
	}
	return replies, tx.commit()
}

// decideAssumingNew decides an event as new, skipping the read of its id
// (almost every event is new); a known id makes the event row's insert
// fail, and the event is decided again from the savepoint "ev", knowing
// it. An event that was not recorded (its label unknown) had its id
// checked by no insert, so it is decided again too.
func (c *DB) decideAssumingNew(ctx context.Context, tx *etx, st central.Station, ev protocol.Event, now int64) (protocol.Result, error) {
	r, err := c.decide(ctx, tx, st, ev, now, false)
	if err == nil && r.Outcome != protocol.OutcomeUnknown {
		return r, nil
	}
	if err != nil && !isUniqueAny(err) {
		return r, err
	}
	if _, err := tx.exec(ctx, "ROLLBACK TO ev"); err != nil {
		return protocol.Result{}, err
	}
	return c.applyInTx(ctx, tx, st, ev, now)
}
