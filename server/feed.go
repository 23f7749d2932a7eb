package server

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"qrdesk/central"
)

// The feed a desk follows (GET /v1/changes): the changes of its site after
// its position, held as a long poll until one arrives, checked to be the
// feed the desk applied (a restored server answers feed_reset) and that
// the station is still the desk's. A write of this process wakes the
// polls of its site (writes, feedtail.go, feedwake.go).

// changes answers one read of the feed.
func (a *API) changes(r *http.Request, st central.Station) (any, error) {
	q, err := parseChangesQuery(r)
	if err != nil {
		return nil, err
	}
	// Long poll: with wait, an empty answer is held until a change arrives
	// (or wait seconds pass), so a desk that is online learns of another
	// desk's redemption within a fraction of a second. Every answer holds
	// each change committed before the request arrived (or, once woken,
	// before the write that woke it).
	ctx := r.Context()
	if q.wait > 0 {
		defer a.tail.wakes.follow(st.SiteID)()
	}
	notBefore := time.Now()
	deadline := notBefore.Add(time.Duration(q.wait) * time.Second)
	for first := true; ; first = false {
		woken := a.tail.wakes.channel(st.SiteID) // before the read: a change the tail takes after it wakes this poll
		if !first {
			// The poll waited: the station may have been revoked, given a
			// new token or moved meanwhile, as for a read arriving now.
			if err := a.stillStation(ctx, st); err != nil {
				return nil, err
			}
		}
		if err := a.tail.refresh(ctx, notBefore); err != nil {
			return nil, err
		}
		if first {
			if err := a.beforeFirstRead(ctx, &st, q); err != nil {
				return nil, err
			}
		}
		answer, found, err := a.readChanges(ctx, st, q)
		if err != nil {
			return nil, err
		}
		a.ack(st.ID, q.after) // the desk has applied everything up to after
		if found > 0 || !time.Now().Before(deadline) {
			return answer, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-woken:
			// The tail took a change for this site: it holds it already.
			notBefore = time.Time{}
		case <-time.After(feedPoll):
			// Other server processes' writes: a refresh within the last
			// feedPoll will do.
			notBefore = time.Now().Add(-feedPoll)
		}
	}
}

// changesQuery is a feed read's parameters: the position the desk has
// applied (after), at most how many changes (limit), the tag of the
// change at after (check, sent by a desk of this release: the feed is
// checked to hold that very change) and how long to hold an empty answer
// (wait, seconds).
type changesQuery struct {
	after       int64
	limit, wait int
	check       string
}

func parseChangesQuery(r *http.Request) (changesQuery, error) {
	values := r.URL.Query()
	q := changesQuery{limit: central.MaxChangesPage, check: values.Get("check")}
	var err error
	q.after, err = strconv.ParseInt(values.Get("after"), 10, 64)
	if (err != nil && values.Get("after") != "") || q.after < 0 {
		return q, central.Badf("after must be a feed position (0 or more)")
	}
	if l := values.Get("limit"); l != "" {
		if q.limit, err = strconv.Atoi(l); err != nil || q.limit < 1 || q.limit > central.MaxChangesPage {
			return q, central.Badf("limit must be 1 to %d", central.MaxChangesPage)
		}
	}
	if len(q.check) > 64 {
		return q, central.Badf("check must be a change's tag")
	}
	if w := values.Get("wait"); w != "" {
		if q.wait, err = strconv.Atoi(w); err != nil || q.wait < 0 || q.wait > MaxWait {
			return q, central.Badf("wait must be 0 to %d seconds", MaxWait)
		}
	}
	return q, nil
}

// beforeFirstRead is what a feed read checks once: a station moved to
// another site since its desk read the feed starts over from its new
// site's snapshot (or reads that site's feed from its beginning), and the
// desk's check tag must name the change the feed holds at after.
func (a *API) beforeFirstRead(ctx context.Context, st *central.Station, q changesQuery) error {
	if st.SiteFrom != 0 {
		if q.after > 0 {
			return central.ErrFeedCompacted
		}
		if err := a.siteMoveSeen(ctx, *st); err != nil {
			return err
		}
		st.SiteFrom = 0 // seen: stillStation compares with the stored station
	}
	if q.check != "" && q.after > 0 {
		return a.checkFeed(ctx, q.after, q.check)
	}
	return nil
}

// readChanges is one page of the site's feed after q.after: from the
// tail when it holds it, else from the database (or its replica); found
// is how many changes it holds.
func (a *API) readChanges(ctx context.Context, st central.Station, q changesQuery) (answer any, found int, err error) {
	if body, n, ok := a.tail.page(q.after, q.limit, st.SiteID); ok {
		return body, n, nil
	}
	ch, err := a.feed().SiteChanges(ctx, st.SiteID, q.after, q.limit)
	if err != nil {
		return nil, 0, err
	}
	next := q.after
	if len(ch) > 0 {
		next = ch[len(ch)-1].Seq
	}
	return map[string]any{"changes": ch, "next": next}, len(ch), nil
}

// stillStation checks a waiting long poll's station again, as a feed read
// arriving now would (the cache while no station changed, else the
// database): revoked or given a new token, the poll is refused; moved to
// another site, it is told to start over (the desk's next read takes the
// new site's snapshot).
func (a *API) stillStation(ctx context.Context, st central.Station) error {
	now, found := a.cachedForRead(st.TokenHash)
	if !found {
		var err error
		if now, err = a.lookUpStation(ctx, st.TokenHash); err != nil {
			return err
		}
	}
	if now.SiteID != st.SiteID || now.SiteFrom != st.SiteFrom {
		return central.ErrFeedCompacted
	}
	return nil
}

// checkFeed returns central.ErrFeedReset when the change at position after
// is not the one the desk applied there (its tag is check), or the feed
// holds none there though it was never compacted so far: the server's
// database was restored from a backup (or failed over to a standby that
// was behind) and the positions after it were written again, or not yet.
// The feed from memory answers without the database when it holds the
// position.
func (a *API) checkFeed(ctx context.Context, after int64, check string) error {
	if rewound, ok := a.tail.rewound(after, check); ok {
		if rewound {
			return central.ErrFeedReset
		}
		return nil
	}
	tag, held, err := a.feed().FeedTag(ctx, after)
	switch {
	case err != nil:
		return err
	case held && tag != check:
		return central.ErrFeedReset
	case held:
		return nil
	}
	// Not held: the primary does not hold it either (a read replica asks
	// the primary for a position it lacks), so the primary's floor says
	// whether it was compacted.
	floor, _, err := a.Store.FeedBounds(ctx)
	if err != nil {
		return err
	}
	if after > floor {
		return central.ErrFeedReset
	}
	return nil // compacted: nothing to check it against
}

// MaxWait bounds a long poll of the feed, below the server's 30 s write
// timeout. A waiting poll looks again when the tail takes a change for its
// site (a write of this process makes it read: feedwake.go), and every
// feedPoll for the changes other server processes on the same database
// write.
const (
	MaxWait  = 25
	feedPoll = 500 * time.Millisecond
)

// writes marks a handler that may add changes to the feed: when it ends,
// the tail reads them and wakes the polls of their sites.
func (a *API) writes(h func(r *http.Request, st central.Station) (any, error)) func(r *http.Request, st central.Station) (any, error) {
	return func(r *http.Request, st central.Station) (any, error) {
		defer a.notifyFeed()
		v, err := h(r, st)
		var wf *central.WriteFailure
		switch {
		case errors.As(err, &wf):
			a.writeRefused(err)
		case err == nil:
			a.wroteOK()
		}
		return v, err
	}
}

// notifyFeed: a request of this process may have written a change.
func (a *API) notifyFeed() { a.tail.changed() }
