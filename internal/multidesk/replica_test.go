package multidesk_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/central"
	"qrdesk/deskclient"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
	"qrdesk/server"
	"qrdesk/serverdb"
)

// feedWatch wraps a desk's Remote and records every feed position it was
// handed, in order, and every refusal of its feed reads.
type feedWatch struct {
	app.Remote
	mu        sync.Mutex
	positions []int64
	refusals  []string
	snapshots int
}

func (w *feedWatch) Feed(ctx context.Context, ring string, after int64, check string, wait time.Duration) ([]protocol.Change, int64, error) {
	changes, next, err := w.Remote.Feed(ctx, ring, after, check, wait)
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, ch := range changes {
		w.positions = append(w.positions, ch.Seq)
	}
	var sr *app.ServerRefusal
	if errors.As(err, &sr) {
		w.refusals = append(w.refusals, sr.Code)
	}
	return changes, next, err
}

func (w *feedWatch) Snapshot(ctx context.Context, ring string, afterID, position int64) (protocol.Snapshot, error) {
	w.mu.Lock()
	w.snapshots++
	w.mu.Unlock()
	return w.Remote.Snapshot(ctx, ring, afterID, position)
}

func (w *feedWatch) seen() ([]int64, []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]int64(nil), w.positions...), append([]string(nil), w.refusals...)
}

// TestDeskFollowsThroughReadReplica runs qrdesk-server on a PostgreSQL
// primary reading the desks' feed from a real streaming standby (made by
// pg_basebackup -R, asynchronous), and a second server process on the
// same pair that hands the feed to the primary once the replica lacks
// changes for over half a second. Desks issue and redeem (online, offline,
// a double use) while two desks follow the feed, one through each process:
//   - they miss nothing: each is handed every position of the primary's
//     feed once, in order, and holds every label as the server has it;
//   - replay paused on the standby: the desk of the first process gets
//     nothing newer than the standby has applied, and a desk whose cursor
//     is beyond it is told to wait, not to start over; the desk of the
//     second process gets everything from the primary; replay resumed,
//     both catch up;
//   - the standby stopped: the desks still sync (the primary answers), a
//     new desk too; started again, nothing is missed or reset;
//   - a new desk after compaction starts over from a snapshot read on
//     the replica; a later snapshot page whose first page came from the
//     primary is read on the primary while the replica is behind it.
func TestDeskFollowsThroughReadReplica(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pair := testpg.StartReadReplica(t)
	defer func() {
		if t.Failed() {
			t.Log(pair.Log())
		}
	}()
	primaryURL, standbyURL := pair.NodeURL(pair.Primary()), pair.NodeURL(pair.Standby())
	h := centraltest.NewWithReplica(t, primaryURL, standbyURL, serverdb.ReplicaOptions{MaxLag: time.Minute, RetryAfter: 100 * time.Millisecond}, 0)
	// The second process: the same databases, MaxLag half a second.
	db2, err := serverdb.Open(ctx, primaryURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db2.Close() })
	replica2, err := serverdb.OpenReplica(ctx, db2, standbyURL, serverdb.ReplicaOptions{MaxLag: 500 * time.Millisecond, RetryAfter: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { replica2.Close() })
	// Its snapshots come in pages of 3 labels.
	srv2 := httptest.NewServer((&server.API{Store: db2, Feed: replica2, Log: slog.New(slog.DiscardHandler), Now: func() time.Time { return h.Now }, SnapshotPage: 3}).Handler())
	t.Cleanup(srv2.Close)
	standby, err := sql.Open("pgx", standbyURL)
	if err != nil {
		t.Fatal(err)
	}
	defer standby.Close()

	issuer := h.Desk(t, "Desk A", "A", h.Station(t, "Desk A", "A"))
	clerk := h.Desk(t, "Desk B", "B", h.Station(t, "Desk B", "B"))
	// B's redemptions are online (the test is about the feed): on a busy
	// machine under -race one could take over the desk's 1 s, and B would
	// decide alone about a label it does not hold.
	clerk.Svc.OnlineTimeout = 10 * time.Second
	follow := func(name, letter, url string) (*centraltest.Desk, *feedWatch) {
		token := h.Station(t, name, letter)
		d := h.Desk(t, name, letter, "")
		w := &feedWatch{Remote: deskclient.New(url, token)}
		d.Svc.Remote = w
		d.Sync(t)
		return d, w
	}
	f, fw := follow("Desk F", "F", h.URL)    // through the first process
	g, gw := follow("Desk G", "G", srv2.URL) // through the second
	followCtx, stopFollowing := context.WithCancel(ctx)
	var following sync.WaitGroup
	for _, d := range []*centraltest.Desk{f, g} {
		following.Add(1)
		go func() {
			defer following.Done()
			d.Svc.Follow(followCtx)
		}()
	}
	defer following.Wait()
	defer stopFollowing()

	// Other desks issue and redeem: a batch of 8 at A, 5 redeemed online
	// at B, one offline at A, and one of B's again offline at A (a double
	// use: a conflict).
	round := 0
	work := func() {
		t.Helper()
		round++
		codes := issuer.Issue(t, 8)
		issuer.Sync(t)
		for _, code := range codes[:5] {
			if v := clerk.Redeem(t, code, "bo"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("round %d: B redeeming %s online: %+v", round, code, v)
			}
		}
		issuer.Offline(func() {
			issuer.Redeem(t, codes[5], "al")
			issuer.Redeem(t, codes[0], "al")
		})
		issuer.Sync(t)
	}
	// primaryHead places what is committed and returns the primary's head.
	primaryHead := func() int64 {
		t.Helper()
		if _, _, err := h.DB.FeedTag(ctx, 0); err != nil { // places
			t.Fatal(err)
		}
		_, head, err := h.DB.FeedBounds(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return head
	}
	standbyHead := func() int64 {
		t.Helper()
		var head int64
		if err := standby.QueryRowContext(ctx, `SELECT COALESCE(max(pos), 0) FROM changes`).Scan(&head); err != nil {
			t.Fatal(err)
		}
		return head
	}
	cursor := func(d *centraltest.Desk) int64 {
		t.Helper()
		st, err := d.DB.SyncState(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return st.Cursor
	}
	waitCursor := func(d *centraltest.Desk, name string, want int64) {
		t.Helper()
		for start := time.Now(); cursor(d) != want; time.Sleep(20 * time.Millisecond) {
			if time.Since(start) > 15*time.Second {
				t.Fatalf("%s: cursor %d after 15 s, want %d (standby at %d)", name, cursor(d), want, standbyHead())
			}
		}
	}
	// missesNothing: the desk was handed every position of the primary's
	// feed once, in order, and holds every label as the server has it.
	missesNothing := func(d *centraltest.Desk, w *feedWatch, name string) {
		t.Helper()
		want := h.Server(t).FeedPositions()
		got, refusals := w.seen()
		if len(refusals) > 0 {
			t.Errorf("%s: feed refused %v", name, refusals)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s was handed positions %v,\nthe primary's feed is %v", name, got, want)
		}
		for _, l := range h.Server(t).Labels() {
			code, status := l.Code, l.Status
			var got string
			if err := d.DB.SQL().QueryRowContext(ctx, `SELECT status FROM codes WHERE code = ?`, code).Scan(&got); err != nil || got != status {
				t.Fatalf("%s holds %s as %q (%v), the server as %q", name, code, got, err, status)
			}
		}
	}
	readyz := func(url string) central.ReplicaStatus {
		t.Helper()
		resp, err := http.Get(url + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body struct {
			Status  string
			Replica *central.ReplicaStatus
		}
		json.NewDecoder(resp.Body).Decode(&body)
		if resp.StatusCode != 200 || body.Status != "ready" || body.Replica == nil {
			t.Fatalf("%s/readyz: %d %+v", url, resp.StatusCode, body)
		}
		return *body.Replica
	}

	// Following through the replica while the others work.
	for range 3 {
		work()
	}
	head := primaryHead()
	waitCursor(f, "Desk F", head)
	waitCursor(g, "Desk G", head)
	missesNothing(f, fw, "Desk F")
	missesNothing(g, gw, "Desk G")
	if st := readyz(h.URL); !st.Up || !st.Serving || st.Reads["replica"] == 0 {
		t.Fatalf("the first process's replica: %+v", st)
	}
	t.Logf("following: %d positions each; %+v", head, readyz(h.URL))

	// Replay paused: the first process's desk waits at what the standby
	// has; the second process's gets it all from the primary.
	if err := pair.PauseReplay(ctx); err != nil {
		t.Fatal(err)
	}
	paused := standbyHead()
	work()
	work()
	head = primaryHead()
	if head <= paused {
		t.Fatalf("the primary's head %d is not beyond the paused standby's %d", head, paused)
	}
	waitCursor(g, "Desk G (second process, falls back)", head)
	time.Sleep(300 * time.Millisecond) // time enough for Desk F to be handed anything
	if got, _ := fw.seen(); cursor(f) > paused || (len(got) > 0 && got[len(got)-1] > paused) {
		t.Fatalf("with replay paused at %d Desk F is at %d, was handed %v", paused, cursor(f), got)
	}
	// A desk ahead of the replica (its cursor from the primary) waits.
	tag, _, err := h.DB.FeedTag(ctx, head)
	if err != nil {
		t.Fatal(err)
	}
	var page struct {
		Changes []protocol.Change
		Next    int64
	}
	token := "qrd_test_Desk_G" // G's station, asking the first process
	if code := h.Call(t, "GET", fmt.Sprintf("/v1/changes?after=%d&check=%s", head, tag), token, h.Ring, nil, &page); code != 200 || len(page.Changes) != 0 || page.Next != head {
		t.Fatalf("a desk at %d, ahead of the paused standby (%d): %d %+v, want no changes and its cursor", head, paused, code, page)
	}
	st1, st2 := readyz(h.URL), readyz(srv2.URL)
	if !st1.Serving || !st1.ReplayPaused || st1.BehindPositions == 0 || st1.Behind == 0 {
		t.Fatalf("the first process's replica with replay paused: %+v", st1)
	}
	if st2.Serving || st2.Reads["primary_lagging"] == 0 {
		t.Fatalf("the second process's replica with replay paused: %+v, want the primary serving", st2)
	}
	t.Logf("replay paused at %d, primary at %d: first process %+v; second %+v", paused, head, st1, st2)
	if err := pair.ResumeReplay(ctx); err != nil {
		t.Fatal(err)
	}
	waitCursor(f, "Desk F", head)
	missesNothing(f, fw, "Desk F")
	missesNothing(g, gw, "Desk G")

	// The standby stopped: the primary answers; a new desk syncs too.
	if err := pair.StopStandby(); err != nil {
		t.Fatal(err)
	}
	work()
	head = primaryHead()
	waitCursor(f, "Desk F (standby stopped)", head)
	waitCursor(g, "Desk G (standby stopped)", head)
	n, nw := follow("Desk N", "N", h.URL)
	if cursor(n) != head {
		t.Fatalf("a new desk synced to %d with the standby stopped, want %d", cursor(n), head)
	}
	if st := readyz(h.URL); st.Up || st.Serving || st.Reads["primary_down"] == 0 {
		t.Fatalf("the first process's replica stopped: %+v", st)
	}
	if err := pair.StartStandby(); err != nil {
		t.Fatal(err)
	}
	work()
	head = primaryHead()
	waitCursor(f, "Desk F", head)
	waitCursor(g, "Desk G", head)
	n.Sync(t)
	for _, d := range []struct {
		d    *centraltest.Desk
		w    *feedWatch
		name string
	}{{f, fw, "Desk F"}, {g, gw, "Desk G"}} {
		missesNothing(d.d, d.w, d.name)
	}
	if _, refusals := nw.seen(); len(refusals) > 0 || cursor(n) != head {
		t.Fatalf("the new desk: at %d (want %d), refusals %v", cursor(n), head, refusals)
	}
	for start := time.Now(); !readyz(h.URL).Serving; time.Sleep(50 * time.Millisecond) {
		if time.Since(start) > 15*time.Second {
			t.Fatalf("the replica does not serve again: %+v", readyz(h.URL))
		}
	}

	// Compacted: a new desk starts over from a snapshot, read on the
	// replica, and follows on from its position. Through the second
	// process the snapshot has many pages: the desk names the first
	// page's position on the others, so they are read on the replica too.
	for _, d := range []*centraltest.Desk{issuer, clerk, n} {
		d.Sync(t)
	}
	if dropped := h.Compact(t, 0); dropped == 0 {
		t.Fatal("nothing compacted")
	}
	// The standby has the compaction too (a replica that has not applied
	// it yet serves the whole feed, and the new desk needs no snapshot).
	floor, _, err := h.DB.FeedBounds(ctx)
	if err != nil {
		t.Fatal(err)
	}
	standbyFloor := func() int64 {
		var v sql.NullString
		standby.QueryRowContext(ctx, `SELECT value FROM deployment WHERE key = 'feed_floor'`).Scan(&v)
		n, _ := strconv.ParseInt(v.String, 10, 64)
		return n
	}
	for start := time.Now(); standbyHead() < head || standbyFloor() < floor; time.Sleep(20 * time.Millisecond) {
		if time.Since(start) > 15*time.Second {
			t.Fatalf("the standby did not catch up: head %d of %d, floor %d of %d", standbyHead(), head, standbyFloor(), floor)
		}
	}
	before := readyz(h.URL).Reads["replica"]
	late, lw := follow("Desk L", "L", h.URL)
	if lw.snapshots == 0 || cursor(late) != head || readyz(h.URL).Reads["replica"] == before {
		t.Fatalf("a new desk after compaction: %d snapshot pages, at %d (want %d), replica reads %d → %d", lw.snapshots, cursor(late), head, before, readyz(h.URL).Reads["replica"])
	}
	missesLabels := func(d *centraltest.Desk, name string) {
		t.Helper()
		want := h.Server(t).CountLabels("")
		if got := d.Count(t, `SELECT count(*) FROM codes`); got != want {
			t.Fatalf("%s holds %d labels, the server %d", name, got, want)
		}
	}
	missesLabels(late, "Desk L")
	for start := time.Now(); !replica2.ReplicaStatus(ctx).Serving; time.Sleep(50 * time.Millisecond) {
		if time.Since(start) > 15*time.Second {
			t.Fatalf("the second process's replica does not serve again: %+v", replica2.ReplicaStatus(ctx))
		}
	}
	before2 := replica2.ReplicaStatus(ctx).Reads
	late2, lw2 := follow("Desk M", "M", srv2.URL)
	after2 := replica2.ReplicaStatus(ctx).Reads
	if lw2.snapshots < 3 || cursor(late2) != head || after2["replica"]-before2["replica"] < int64(lw2.snapshots) || after2["primary_older_desk"] != 0 {
		t.Fatalf("a new desk through the second process: %d snapshot pages, at %d (want %d); reads %v → %v", lw2.snapshots, cursor(late2), head, before2, after2)
	}
	missesLabels(late2, "Desk M")
	if _, err := replica2.Snapshot(ctx, 1, "", 1, 0, 3); err != nil { // as a desk of an older release asks
		t.Fatal(err)
	} else if replica2.ReplicaStatus(ctx).Reads["primary_older_desk"] != 1 {
		t.Fatalf("a later page without its position was not read on the primary: %+v", replica2.ReplicaStatus(ctx))
	}

	// A snapshot whose first page the primary read (position beyond the
	// paused standby): its later pages are read on the primary, or they
	// would show a label as it was before a change at or below the
	// position. Pages of two labels; the label redeemed last is the last.
	if err := pair.PauseReplay(ctx); err != nil {
		t.Fatal(err)
	}
	last := issuer.Issue(t, 1)[0]
	issuer.Sync(t)
	if v := clerk.Redeem(t, last, "bo"); v.Outcome != app.OutcomeRedeemed {
		t.Fatalf("redeeming %s: %+v", last, v)
	}
	site := int64(1)
	first, err := h.DB.Snapshot(ctx, site, "", 0, 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	if first.Position <= standbyHead() {
		t.Fatalf("the primary's snapshot is at %d, the paused standby at %d", first.Position, standbyHead())
	}
	var status string
	for after := first.NextID; after != 0; {
		p, err := h.Replica.Snapshot(ctx, site, "", after, first.Position, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range p.Codes {
			if c.Code == last {
				status = c.Status
			}
		}
		after = p.NextID
	}
	if status != string(app.StatusUsed) {
		t.Fatalf("a later page of a snapshot at %d shows %s as %q, want used (the standby is at %d)", first.Position, last, status, standbyHead())
	}
	if st := readyz(h.URL); st.Reads["primary_behind"] == 0 {
		t.Fatalf("no later page was read on the primary: %+v", st)
	}
	if err := pair.ResumeReplay(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("end: first process %+v", readyz(h.URL))
}
