package server

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"strconv"
	"sync"
	"time"

	"qrdesk/central"
)

// feedTail keeps the newest part of the change feed in memory, each change
// encoded to JSON once, and answers the desks that follow the feed from
// it. With 1,000 desks following and 200 redemptions a second, every desk
// read every change from the database and encoded it for itself: 200,000
// reads and encodings a second, which left the server no time to answer
// redemptions (online p99 ~700 ms). Now the database is read once per
// refresh for all the desks, and a refresh reads only what is new.
//
// It holds every change in (floor, head], in position order, as the
// database's feed gave them: read in order from one cursor, exactly as a
// desk reads, so it can hold no hole a desk's own read could not have.
// A request it cannot answer (a cursor below floor, above head, or no
// tail yet) reads the database as before.
type feedTail struct {
	store central.FeedReader

	mu          sync.RWMutex
	ready       bool
	floor, head int64
	entries     []tailEntry
	// floorTag is the tag of the change at floor; floorHeld is false when
	// the feed holds none there (compacted, or an empty feed): a desk at
	// floor then has nothing to check, as the database would say.
	floorTag  string
	floorHeld bool
	// bySite holds the positions of each site's entries (site 0: every
	// site's), in order: a desk's answer reads its site's and site 0's, not
	// the whole tail. With 100 sites, the changes after a quiet site's
	// cursor are mostly other sites': scanning them at every wake, for
	// every desk, grew with the chain, as the feed itself did.
	bySite map[int64][]int64

	pagesMu sync.Mutex
	pages   map[pageKey]builtPage // answers built since the tail last changed

	refreshMu   sync.Mutex
	lastStarted time.Time     // when the last refresh began to read
	lastRead    time.Time     // when the last refresh that succeeded began to read
	lastErr     error         // the database's error, when the last refresh got one
	reading     chan struct{} // closed when the refresh under way ends (nil: none)

	wakes siteWakes // the long polls under way, by site (feedwake.go)
	kicks kicker    // refreshes asked for by this process's writes
}

type tailEntry struct {
	pos  int64
	tag  string
	site int64 // the change's site (0: every site's desks get it)
	json []byte
}

const (
	// tailKeep bounds the changes kept (a change is ~200 bytes): desks
	// further behind read the database, as a returning desk does anyway.
	tailKeep = 50_000
	// tailPace is the pause between refreshes per desk a refresh may wake
	// (the long polls of a site, on average), between tailPaceMin and
	// tailPaceMax: a few desks learn of a change at once; a thousand in one
	// site get the changes of a quarter second in one answer instead of one
	// answer per change (each answer costs the server a request). A
	// refresh wakes only the sites it brought changes to, so a chain of
	// small sites refreshes often: tailPaceMin bounds its database reads.
	tailPace    = 250 * time.Microsecond
	tailPaceMin = 20 * time.Millisecond
	tailPaceMax = 250 * time.Millisecond
)

// refresh brings the tail up to the database's feed, unless a refresh that
// began at or after notBefore already did: such a refresh saw every
// change committed before notBefore. One that failed saw nothing: when its
// request hung up, the next one reads; when the database failed it, the
// requests that waited for it get its error (not a stale answer, and not
// one database read each, one after the other, while the database is
// away). One refresh reads at a time; the others wait for it without
// holding anything, so a request whose change it already read goes on at
// once instead of queueing behind the next refresh's pause.
func (t *feedTail) refresh(ctx context.Context, notBefore time.Time) error {
	for {
		t.refreshMu.Lock()
		if !t.lastRead.Before(notBefore) {
			t.refreshMu.Unlock()
			return nil
		}
		if wait := t.reading; wait != nil {
			t.refreshMu.Unlock()
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-wait:
			}
			continue // that refresh may have begun before notBefore
		}
		if t.lastErr != nil && !t.lastStarted.Before(notBefore) {
			err := t.lastErr
			t.refreshMu.Unlock()
			return err
		}
		done := make(chan struct{})
		t.reading = done
		pause := t.pace() - time.Since(t.lastStarted)
		t.refreshMu.Unlock()
		return t.read(ctx, pause, done)
	}
}

// pace is the pause between two refreshes.
func (t *feedTail) pace() time.Duration {
	polls, sites := t.wakes.following()
	perSite := polls / max(1, sites)
	return min(max(time.Duration(perSite)*tailPace, tailPaceMin), tailPaceMax)
}

// read is the one refresh under way: after the pause it reads what is
// new, records the outcome and lets the waiting requests go (done).
func (t *feedTail) read(ctx context.Context, pause time.Duration, done chan struct{}) error {
	var err error
	started := time.Now()
	if pause > 0 {
		select {
		case <-ctx.Done():
			err = ctx.Err()
		case <-time.After(pause):
			started = time.Now()
		}
	}
	if err == nil {
		t.refreshMu.Lock()
		t.lastStarted = started
		t.refreshMu.Unlock()
		err = t.readNew(ctx)
	}
	t.refreshMu.Lock()
	defer t.refreshMu.Unlock()
	switch {
	case err == nil:
		t.lastRead, t.lastErr = started, nil
	case ctx.Err() != nil:
		t.lastErr = nil // this request hung up: the next one reads
	default:
		t.lastErr = err
	}
	t.reading = nil
	close(done)
	return err
}

// readNew appends what the database's feed holds after head.
func (t *feedTail) readNew(ctx context.Context) error {
	t.mu.RLock()
	ready, head := t.ready, t.head
	t.mu.RUnlock()
	if !ready {
		_, top, err := t.store.FeedBounds(ctx) // top is at or above the floor
		if err != nil {
			return err
		}
		tag, held, err := t.store.FeedTag(ctx, top)
		if err != nil {
			return err
		}
		// Start empty at the top: desks behind it read the database.
		t.mu.Lock()
		t.ready, t.floor, t.head, t.entries, t.floorTag, t.floorHeld = true, top, top, nil, tag, held
		t.mu.Unlock()
		head = top
		// A change written just before is under the new top, where no
		// refresh will take it: the waiting polls read the database.
		t.wakes.wake(0)
	}
	for first := true; ; first = false {
		changes, err := t.store.Changes(ctx, head, central.MaxChangesPage)
		if errors.Is(err, central.ErrFeedCompacted) || errors.Is(err, central.ErrFeedReset) {
			// Compacted past the tail (it was idle), or the database was
			// restored from a backup: start again from its top.
			t.reset()
			return nil
		}
		if err != nil {
			return err
		}
		if len(changes) == 0 {
			break
		}
		if first {
			// The database restored from a backup (a failover to a standby
			// that was behind) under this process, and written again past
			// the tail's head: the tail holds changes it no longer has.
			t.mu.RLock()
			tag := t.tagAt(head)
			t.mu.RUnlock()
			now, held, err := t.store.FeedTag(ctx, head)
			if err != nil {
				return err
			}
			if held && tag != "" && now != tag {
				t.reset()
				return nil
			}
		}
		add := make([]tailEntry, len(changes))
		for i, ch := range changes {
			b, err := json.Marshal(ch)
			if err != nil {
				return err
			}
			add[i] = tailEntry{pos: ch.Seq, tag: ch.Tag, site: ch.Site, json: b}
		}
		head = changes[len(changes)-1].Seq
		t.mu.Lock()
		t.add(add)
		t.mu.Unlock()
		if len(changes) < central.MaxChangesPage {
			break
		}
	}
	// Compaction raises the floor: a desk below it starts over from a
	// snapshot, as the database would tell it.
	floor, _, err := t.store.FeedBounds(ctx)
	if err != nil {
		return err
	}
	t.mu.Lock()
	if floor > t.floor {
		i := sort.Search(len(t.entries), func(i int) bool { return t.entries[i].pos > floor })
		if i > 0 { // the change at the new floor (at most head) is entries[i-1]
			t.floorTag, t.floorHeld = t.entries[i-1].tag, t.entries[i-1].pos == min(floor, t.head)
		}
		t.entries = t.entries[i:]
		t.floor = min(floor, t.head)
		t.trimSites()
		t.wakes.wake(0) // a desk now below the floor is told to start over
	}
	t.mu.Unlock()
	return nil
}

// add appends changes read after head, and keeps the newest tailKeep
// (under t.mu).
func (t *feedTail) add(add []tailEntry) {
	t.entries = append(t.entries, add...)
	if t.bySite == nil {
		t.bySite = map[int64][]int64{}
	}
	for _, e := range add {
		t.bySite[e.site] = append(t.bySite[e.site], e.pos)
		t.wakes.wake(e.site)
	}
	t.head = add[len(add)-1].pos
	if drop := len(t.entries) - tailKeep; drop > 0 {
		t.floor, t.floorTag, t.floorHeld = t.entries[drop-1].pos, t.entries[drop-1].tag, true
		t.entries = append([]tailEntry(nil), t.entries[drop:]...)
		t.trimSites()
	}
}

// trimSites drops from bySite the positions the tail no longer holds (at
// or below floor), under t.mu.
func (t *feedTail) trimSites() {
	for site, list := range t.bySite {
		i := sort.Search(len(list), func(i int) bool { return list[i] > t.floor })
		switch {
		case i == len(list):
			delete(t.bySite, site)
		case i > 0:
			t.bySite[site] = append([]int64(nil), list[i:]...)
		}
	}
}

func (t *feedTail) reset() {
	t.mu.Lock()
	t.ready, t.entries, t.bySite, t.floorTag, t.floorHeld = false, nil, nil, "", false
	t.mu.Unlock()
	// The answers built from the old tail: once the new one reaches the
	// same floor and head, their key would match, not their changes.
	t.pagesMu.Lock()
	t.pages = nil
	t.pagesMu.Unlock()
	t.wakes.wake(0) // every desk looks again, at the database
}

// tagAt returns the tag of the change at pos in [floor, head] ("": not
// known, or none), under t.mu.
func (t *feedTail) tagAt(pos int64) string {
	if pos == t.floor {
		return t.floorTag
	}
	i := sort.Search(len(t.entries), func(i int) bool { return t.entries[i].pos >= pos })
	if i < len(t.entries) && t.entries[i].pos == pos {
		return t.entries[i].tag
	}
	return ""
}

// rewound reports whether the change at after is not the one a desk
// applied there (its tag is check): the database was restored from a
// backup and the position written again, or never written since. ok is
// false when the tail does not hold the position.
func (t *feedTail) rewound(after int64, check string) (rewound, ok bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if !t.ready || after < t.floor || after > t.head {
		return false, false
	}
	if after == t.floor {
		if !t.floorHeld {
			// Nothing there to compare with: compacted, or a position a
			// restored database never gave (serverdb/feedresume.go). The
			// database's floor tells which.
			return false, false
		}
		return t.floorTag != check, true
	}
	tag := t.tagAt(after)
	return tag != check, true
}

// sitePositions returns the positions of the site's entries after the
// cursor, under t.mu.
func (t *feedTail) sitePositions(site, after int64) []int64 {
	list := t.bySite[site]
	return list[sort.Search(len(list), func(i int) bool { return list[i] > after }):]
}

// pageKey is what an answer depends on besides the tail's content.
type pageKey struct {
	floor, head, after, site int64
	limit                    int
}

type builtPage struct {
	body json.RawMessage
	n    int
}

// maxBuiltPages bounds the answers kept: desks that follow the feed are
// mostly at the same cursor (the last head), so one answer serves them.
const maxBuiltPages = 64

// page answers GET /v1/changes from the tail: up to limit changes of the
// site (its labels' and the deployment-wide ones) after the cursor, as the
// JSON the database path writes. ok is false when the
// tail does not hold the cursor's place; n is how many changes it holds.
// The desks woken by one refresh mostly ask from the same cursor: the
// answer is built once for them (a thousand desks building their own
// copies at once kept redemptions waiting for the CPU).
func (t *feedTail) page(after int64, limit int, site int64) (body json.RawMessage, n int, ok bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if !t.ready || after < t.floor || after > t.head {
		return nil, 0, false
	}
	key := pageKey{floor: t.floor, head: t.head, after: after, site: site, limit: limit}
	t.pagesMu.Lock()
	defer t.pagesMu.Unlock()
	if p, ok := t.pages[key]; ok {
		return p.body, p.n, true
	}
	body, n = t.build(after, limit, site)
	for k := range t.pages {
		if k.head != t.head || k.floor != t.floor || len(t.pages) >= maxBuiltPages {
			delete(t.pages, k)
		}
	}
	if t.pages == nil {
		t.pages = map[pageKey]builtPage{}
	}
	t.pages[key] = builtPage{body: body, n: n}
	return body, n, true
}

// build encodes up to limit changes of the site after the cursor (under
// t.mu). The other sites' changes are skipped: a desk's cursor moves only
// over its own site's changes (next is the last one sent).
func (t *feedTail) build(after int64, limit int, site int64) (json.RawMessage, int) {
	own, all := t.sitePositions(site, after), []int64(nil)
	if site != 0 {
		all = t.sitePositions(0, after)
	}
	picked := make([]*tailEntry, 0, min(limit, len(own)+len(all)))
	size := 32
	for len(picked) < limit && (len(own) > 0 || len(all) > 0) {
		var pos int64
		if len(all) == 0 || (len(own) > 0 && own[0] < all[0]) {
			pos, own = own[0], own[1:]
		} else {
			pos, all = all[0], all[1:]
		}
		i := sort.Search(len(t.entries), func(i int) bool { return t.entries[i].pos >= pos })
		e := &t.entries[i]
		picked = append(picked, e)
		size += len(e.json) + 1
	}
	b := make([]byte, 0, size)
	b = append(b, `{"changes":[`...)
	for k, e := range picked {
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, e.json...)
	}
	next := after
	if len(picked) > 0 {
		next = picked[len(picked)-1].pos
	}
	b = append(b, `],"next":`...)
	b = strconv.AppendInt(b, next, 10)
	b = append(b, '}', '\n')
	return b, len(picked)
}
