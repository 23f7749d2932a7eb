package server

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"qrdesk/central"
	"qrdesk/protocol"
)

// memoryFeed is a feed in memory (changes in position order, a floor, the
// head ever given), for what the tail does when the database is restored
// under it: a restore here is one call, between two refreshes exactly.
type memoryFeed struct {
	central.FeedReader // the methods the tail does not call
	mu                 sync.Mutex
	changes            []protocol.Change
	floor, head        int64
}

func (f *memoryFeed) write(site int64, tag string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.head++
	f.changes = append(f.changes, protocol.Change{Seq: f.head, Kind: "redeem", Code: tag, Tag: tag, Site: site})
}

// restore goes back to the first n changes (a backup, or a standby that
// was behind).
func (f *memoryFeed) restore(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.changes = append([]protocol.Change(nil), f.changes[:n]...)
	f.head = int64(n)
}

func (f *memoryFeed) Changes(ctx context.Context, after int64, limit int) ([]protocol.Change, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if after < f.floor {
		return nil, central.ErrFeedCompacted
	}
	out := []protocol.Change{}
	for _, ch := range f.changes {
		if ch.Seq > after && len(out) < limit {
			out = append(out, ch)
		}
	}
	if len(out) == 0 && after > 0 && after > f.head {
		return nil, central.ErrFeedReset
	}
	return out, nil
}

func (f *memoryFeed) FeedTag(ctx context.Context, pos int64) (string, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, ch := range f.changes {
		if ch.Seq == pos {
			return ch.Tag, true, nil
		}
	}
	return "", false, nil
}

func (f *memoryFeed) FeedBounds(ctx context.Context) (int64, int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.floor, f.head, nil
}

// refreshTail brings the tail up to the feed, as a request arriving now.
func refreshTail(t *testing.T, tail *feedTail) {
	t.Helper()
	if err := tail.refresh(context.Background(), time.Now()); err != nil {
		t.Fatal(err)
	}
}

// TestFeedTailResetDropsBuiltPages (found by the hostile review): the
// answers built from the tail are kept by (floor, head, cursor, site,
// limit), and a reset of the tail (the database restored from a backup, or
// failed over to a standby that was behind) did not drop them. Once the
// tail, started again, had the same floor and head as before, a desk was
// handed the old answer: changes the database no longer holds, instead of
// those written since.
func TestFeedTailResetDropsBuiltPages(t *testing.T) {
	ctx := context.Background()
	feed := &memoryFeed{}
	for i := 1; i <= 5; i++ {
		feed.write(1, fmt.Sprintf("kept-%d", i))
	}
	tail := &feedTail{store: feed}
	refresh := func() { refreshTail(t, tail) }
	refresh() // the tail starts at the top: floor 5, head 5
	feed.write(1, "lost-6")
	feed.write(1, "lost-7")
	refresh()
	if _, n, ok := tail.page(5, 1000, 1); !ok || n != 2 {
		t.Fatalf("before the restore: %d changes, %v", n, ok)
	}

	feed.restore(5) // positions 6 and 7 are gone
	refresh()       // the tail sees the feed behind its head: it resets
	refresh()       // and starts again at the top: floor 5, head 5
	feed.write(1, "new-6")
	feed.write(1, "new-7")
	refresh()

	body, n, ok := tail.page(5, 1000, 1)
	if !ok {
		t.Fatal("the tail does not answer after 5")
	}
	var got struct{ Changes []protocol.Change }
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	want, _ := feed.Changes(ctx, 5, 1000)
	for i, ch := range got.Changes {
		if i >= len(want) || ch.Tag != want[i].Tag {
			t.Fatalf("after the restore the feed from memory answers %d changes %s; the database holds %v", n, body, want)
		}
	}
}

// TestFeedTailRestoreToTheSameHead (an open finding of the hostile review,
// docs/reliability.md "Known gaps"): the tail checks the tag at its head
// only when a refresh brings new changes. When the database was restored
// behind the tail and written again up to exactly the tail's head between
// two refreshes, the refresh finds nothing new and the tail keeps serving
// the changes the database lost (and vouches for their tags to checkFeed)
// until the next write.
func TestFeedTailRestoreToTheSameHead(t *testing.T) {
	t.Skip("open: a restore rewritten to exactly the tail's head between two refreshes is seen at the next write only (reliability.md, Known gaps)")
	feed := &memoryFeed{}
	for i := 1; i <= 5; i++ {
		feed.write(1, fmt.Sprintf("kept-%d", i))
	}
	tail := &feedTail{store: feed}
	refresh := func() { refreshTail(t, tail) }
	refresh()
	feed.write(1, "lost-6")
	feed.write(1, "lost-7")
	refresh()
	feed.restore(5)
	feed.write(1, "new-6")
	feed.write(1, "new-7")
	refresh()
	if rewound, ok := tail.rewound(7, "lost-7"); ok && !rewound {
		t.Errorf("a refresh after the restore still vouches for lost-7 at position 7 (the database holds new-7 there)")
	}
	body, _, ok := tail.page(5, 1000, 1)
	var got struct{ Changes []protocol.Change }
	json.Unmarshal(body, &got)
	if ok && len(got.Changes) > 0 && got.Changes[0].Tag != "new-6" {
		t.Fatalf("a refresh after the restore answers %s; the database holds new-6, new-7", body)
	}
}

// TestFeedTailStartOverWakesEveryPoll (found by the hostile review): after
// a reset the next refresh starts the tail again at the database's top and
// adds nothing, so it woke no poll; when a write of this process had asked
// for that refresh, its change was under the new top and the waiting polls
// of its site learned of it only at their next feedPoll.
func TestFeedTailStartOverWakesEveryPoll(t *testing.T) {
	feed := &memoryFeed{}
	feed.write(1, "kept-1")
	tail := &feedTail{store: feed}
	refreshTail(t, tail)
	tail.reset()
	waiting := tail.wakes.channel(1) // a poll of site 1 waits again after the reset woke it
	feed.write(1, "written-2")       // a write, then the refresh it asks for
	refreshTail(t, tail)
	select {
	case <-waiting:
	default:
		t.Fatal("the tail started over at the database's top and woke no poll: site 1's change at position 2 waits for the polls' timer")
	}
}
