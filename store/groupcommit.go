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

// groupApply queues one event for the committer and waits for its answer.
func (c *CentralDB) groupApply(ctx context.Context, st central.Station, ev central.Event, now int64) (central.Result, error) {
	c.groupOnce.Do(func() {
		c.jobs = make(chan groupJob, 1024)
		go c.committer()
	})
	job := groupJob{ctx: ctx, st: st, ev: ev, now: now, reply: make(chan groupReply, 1)}
	select {
	case c.jobs <- job:
	case <-ctx.Done():
		return central.Result{}, ctx.Err()
	}
	select {
	case rep := <-job.reply:
		return rep.r, rep.err
	case <-ctx.Done():
		return central.Result{}, ctx.Err() // the decision may still be committed; a retry gets it as a duplicate
	}
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
		r, err := c.applyInTx(j.ctx, tx, j.st, j.ev, j.now)
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
