package store

import (
	"context"
	"fmt"

	"qrdesk/central"
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
	ev    central.Event
	now   int64
	reply chan groupReply
}

type groupReply struct {
	r   central.Result
	err error
}

const maxGroup = 128

// groupApplyAll queues a request's events together, in order (the
// committer takes them in that order), so they share commits instead of
// waiting for one each; then collects the answers. An event whose id turned
// out to be known at once (a retry racing the original) is decided again:
// the group path reads the event id first, so the second time it is found.
func (c *CentralDB) groupApplyAll(ctx context.Context, st central.Station, evs []central.Event, now int64) ([]central.Result, error) {
	c.groupOnce.Do(func() {
		c.jobs = make(chan groupJob, 1024)
		go c.committer()
	})
	jobs := make([]groupJob, len(evs))
	for i, ev := range evs {
		jobs[i] = groupJob{ctx: ctx, st: st, ev: ev, now: now, reply: make(chan groupReply, 1)}
		select {
		case c.jobs <- jobs[i]:
		case <-ctx.Done():
			return nil, ctx.Err() // those queued are decided; a retry gets them as duplicates
		}
	}
	out := make([]central.Result, len(evs))
	for i, j := range jobs {
		var rep groupReply
		select {
		case rep = <-j.reply:
		case <-ctx.Done():
			return nil, ctx.Err() // the decision may still be committed; a retry gets it as a duplicate
		}
		if isUniqueAny(rep.err) {
			var again []central.Result
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

// committer runs until the database is closed.
func (c *CentralDB) committer() {
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

func (c *CentralDB) commitGroup(group []groupJob) {
	replies := make([]groupReply, len(group))
	fail := func(err error) {
		for _, j := range group {
			j.reply <- groupReply{err: err}
		}
	}
	ctx := context.Background()
	tx, err := c.e.begin(ctx)
	if err != nil {
		fail(err)
		return
	}
	defer tx.done()
	for i, j := range group {
		sp := fmt.Sprintf("ev%d", i)
		if _, err := tx.exec(ctx, "SAVEPOINT "+sp); err != nil {
			fail(err)
			return
		}
		// Not the desk's context: a desk that hangs up must not interrupt
		// the statements of a transaction other desks' events share.
		r, err := c.decideAssumingNew(context.WithoutCancel(j.ctx), tx, sp, j.st, j.ev, j.now)
		if err != nil {
			if _, rerr := tx.exec(ctx, "ROLLBACK TO "+sp); rerr != nil {
				fail(rerr)
				return
			}
		}
		if _, err := tx.exec(ctx, "RELEASE "+sp); err != nil {
			fail(err)
			return
		}
		replies[i] = groupReply{r: r, err: err}
	}
	if err := tx.commit(); err != nil {
		fail(err)
		return
	}
	for i, j := range group {
		j.reply <- replies[i]
	}
}

// decideAssumingNew decides an event as new, skipping the read of its id
// (almost every event is new); a known id makes the event row's insert
// fail, and the event is decided again from the savepoint sp, knowing it.
// An event that was not recorded (its label unknown) had its id checked by
// no insert, so it is decided again too.
func (c *CentralDB) decideAssumingNew(ctx context.Context, tx *etx, sp string, st central.Station, ev central.Event, now int64) (central.Result, error) {
	r, err := c.decide(ctx, tx, st, ev, now, false)
	if err == nil && r.Outcome != central.OutcomeUnknown {
		return r, nil
	}
	if err != nil && !isUniqueAny(err) {
		return r, err
	}
	if _, err := tx.exec(ctx, "ROLLBACK TO "+sp); err != nil {
		return central.Result{}, err
	}
	return c.applyInTx(ctx, tx, st, ev, now)
}
