package multidesk_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// TestMovedDeskFollowsTheLabelsItIssued: Main 1 issues two labels in site
// main and uploads them, then the administrator moves it to North. Before
// Main 1 syncs again, Main 2 hands one of them over online. Main 1 starts
// over from North's snapshot: the labels it issued in main are still its
// own (its figures count them), so the snapshot brings them as it brings
// every other site's label a desk of North holds, and Main 1's copy is
// used, as on the server. Offline, Main 1 refuses the label as already
// used rather than handing it over a second time.
func TestMovedDeskFollowsTheLabelsItIssued(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h := centraltest.New(t, dbPath, 0)
		m1 := h.Desk(t, "Main 1", "A", h.Station(t, "Main 1", "A"))
		m2 := h.Desk(t, "Main 2", "B", h.Station(t, "Main 2", "B"))
		siteDesk(t, h, "North", "North 1", "N") // North exists
		codes := m1.Issue(t, 2)
		m1.Sync(t)
		if err := h.DB.SetStationSite(ctx, "Main 1", "North"); err != nil {
			t.Fatal(err)
		}
		if v := m2.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("Main 2 online: %+v", v)
		}
		m1.Sync(t)
		if got := m1.Status(t, codes[0]); got != app.StatusUsed {
			t.Errorf("Main 1, moved to North, holds the label it issued in main as %s; the server has it used by Main 2", got)
		}
		if got := m1.Status(t, codes[1]); got != app.StatusUnused {
			t.Errorf("Main 1's copy of its other label is %s, want unused", got)
		}
		back := offline(m1, "Main 1")
		v := m1.Redeem(t, codes[0], "wang")
		back()
		if v.Outcome == app.OutcomeRedeemed {
			t.Errorf("offline, Main 1 handed over its label %s again after Main 2 had: %+v", codes[0], v)
		}
	})
}

// loseSnapshot is a desk's link to the server on which the answers to the
// snapshot's requests are lost (the server served them) while lose is set.
type loseSnapshot struct {
	app.Remote
	lose bool
}

func (l *loseSnapshot) Snapshot(ctx context.Context, ring string, afterID, position int64) (protocol.Snapshot, error) {
	page, err := l.Remote.Snapshot(ctx, ring, afterID, position)
	if err == nil && l.lose {
		return protocol.Snapshot{}, fmt.Errorf("reading the snapshot: %w", app.ErrTransient)
	}
	return page, err
}

// TestMovedDeskStartOverCutShort: North 1 issues three labels and hands one
// over online; Main 1 syncs (its cursor is past North's uploads, which it
// never read) and is moved to North. At its next sync the server says to
// start over and serves North's snapshot, but the answer is lost (a
// timeout). The server counts the move as seen, so at the sync after, the
// feed is North's from Main 1's old cursor: it holds none of North's
// labels before it. Main 1 remembers it was starting over and takes the
// snapshot again: it holds North's labels, the used one used, and offline
// refuses it instead of handing it over as a label it has never seen.
func TestMovedDeskStartOverCutShort(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h := centraltest.New(t, dbPath, 0)
		m1 := h.Desk(t, "Main 1", "A", h.Station(t, "Main 1", "A"))
		n1 := siteDesk(t, h, "North", "North 1", "N")
		codes := n1.Issue(t, 3)
		n1.Sync(t)
		if v := n1.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("North 1 online: %+v", v)
		}
		m1.Issue(t, 1)
		m1.Sync(t)
		if err := h.DB.SetStationSite(ctx, "Main 1", "North"); err != nil {
			t.Fatal(err)
		}
		link := &loseSnapshot{Remote: m1.Svc.Remote, lose: true}
		m1.Svc.Remote = link
		if _, err := m1.Svc.Sync(ctx); err == nil {
			t.Fatal("the sync whose snapshot answer was lost succeeded: the test's premise changed")
		}
		link.lose = false
		m1.Sync(t)
		for i, code := range codes {
			v, err := m1.Svc.Check(ctx, code)
			if err != nil || v.Record == nil {
				t.Errorf("Main 1, moved to North, does not hold North's label %d after its start over was cut short: %+v %v", i, v, err)
				continue
			}
			want := app.StatusUnused
			if i == 0 {
				want = app.StatusUsed
			}
			if v.Record.Status != want {
				t.Errorf("Main 1's copy of North's label %d is %s, want %s", i, v.Record.Status, want)
			}
		}
		back := offline(m1, "Main 1")
		v := m1.Redeem(t, codes[0], "wang")
		back()
		if v.Outcome == app.OutcomeRedeemed {
			t.Errorf("offline, Main 1 handed over North's label %s, used at North 1: %+v", codes[0], v)
		}
	})
}

// TestSiteCopyFollowsWhenItsHolderMovesAway: Main 1 issues two labels in
// main and is moved to North, so North's snapshot brings them (a desk of
// North issued them). South 1 is moved to North too and starts over from
// that snapshot while Main 1 is there. Then Main 1 is moved back to main,
// and Main 2 hands one of the labels over online: the server sends that
// change to main alone, since no desk of North holds the label any more.
// South 1, in North, must not keep a copy that says unused: it holds the
// label as the server has it, or not at all (it did nothing with it).
func TestSiteCopyFollowsWhenItsHolderMovesAway(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h := centraltest.New(t, dbPath, 0)
		m1 := h.Desk(t, "Main 1", "A", h.Station(t, "Main 1", "A"))
		m2 := h.Desk(t, "Main 2", "B", h.Station(t, "Main 2", "B"))
		siteDesk(t, h, "North", "North 1", "N") // North exists
		s1 := siteDesk(t, h, "South", "South 1", "S")
		codes := m1.Issue(t, 2)
		m1.Sync(t)
		m2.Sync(t)
		s1.Issue(t, 1)
		s1.Sync(t) // its cursor is past South's labels
		if err := h.DB.SetStationSite(ctx, "Main 1", "North"); err != nil {
			t.Fatal(err)
		}
		m1.Sync(t)
		if err := h.DB.SetStationSite(ctx, "South 1", "North"); err != nil {
			t.Fatal(err)
		}
		s1.Sync(t) // starts over from North's snapshot
		if err := h.DB.SetStationSite(ctx, "Main 1", "main"); err != nil {
			t.Fatal(err)
		}
		m1.Sync(t)
		if v := m2.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("Main 2 online: %+v", v)
		}
		s1.Sync(t)
		s1.Sync(t)
		usedOrGone(t, s1, codes[0], "South 1, in North,", "Main 2")
	})
}

// TestMovedDeskDropsACopyOnlyItsNewSitesConflictNames: Main 2 downloads
// main's label and falls behind main's feed. South 1 hands the label over
// offline and Main 1 online: a double use in which South took part. Main 2
// is moved to South before it reads Main 1's redemption, and starts over
// from South's snapshot. The snapshot brings the conflict (a desk of South
// took part: Main 2 lists it) but not the label: Main 2 has nothing of its
// own on it, and the feed sends the label's changes to South only while
// South 1 holds it. So Main 2 holds the label as the server has it (used)
// or not at all: it kept its old copy, unused, because a conflict named
// it.
func TestMovedDeskDropsACopyOnlyItsNewSitesConflictNames(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h := centraltest.New(t, dbPath, 0)
		m1 := h.Desk(t, "Main 1", "A", h.Station(t, "Main 1", "A"))
		m2 := h.Desk(t, "Main 2", "B", h.Station(t, "Main 2", "B"))
		s1 := siteDesk(t, h, "South", "South 1", "S")
		codes := m1.Issue(t, 2)
		m1.Sync(t)
		m2.Sync(t) // holds main's labels, unused
		s1.Sync(t)
		back := offline(s1, "South 1")
		if v := s1.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("South 1 offline: %+v", v)
		}
		back()
		h.Now = h.Now.Add(time.Minute)
		if v := m1.Redeem(t, codes[0], "wang"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("Main 1 online: %+v", v)
		}
		s1.Sync(t)
		if got := h.Server(t).Conflicts()[codes[0]]; got != 1 {
			t.Fatalf("the server holds %d conflicts over %s, want 1: the test's premise changed", got, codes[0])
		}
		if err := h.DB.SetStationSite(ctx, "Main 2", "South"); err != nil {
			t.Fatal(err)
		}
		m2.Sync(t) // starts over from South's snapshot
		m2.Sync(t)
		usedOrGone(t, m2, codes[0], "Main 2, moved to South,", "Main 1")
		if list, err := m2.DB.Conflicts(ctx); err != nil || len(list) != 1 || list[0].Code != codes[0] {
			t.Errorf("Main 2, moved to South, lists conflicts %+v (%v), want the one South 1 took part in", list, err)
		}
	})
}

// TestMovedDeskDropsACopyOnlyTheServersFlagNames: main closes its day,
// expiring a label, and Main 2, offline, hands it over: the server takes
// the redemption and flags it (redeemed after its day was closed). Main 3
// reads that change and keeps the server's note in the label's history.
// Moved to North, Main 3 starts over: the snapshot does not bring the
// label (Main 3 did nothing with it), and the note is the server's, not
// Main 3's, so the copy goes with it. Main 2's supervisor then undoes the
// redemption (expired at the server again), a change North never gets:
// Main 3 holds the label as the server has it, or not at all; it kept
// its copy used because of the note.
func TestMovedDeskDropsACopyOnlyTheServersFlagNames(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h := centraltest.New(t, dbPath, 0)
		m1 := h.Desk(t, "Main 1", "A", h.Station(t, "Main 1", "A"))
		m2 := h.Desk(t, "Main 2", "B", h.Station(t, "Main 2", "B"))
		m3 := h.Desk(t, "Main 3", "C", h.Station(t, "Main 3", "C"))
		siteDesk(t, h, "North", "North 1", "N") // North exists
		codes := m1.Issue(t, 2)
		for _, d := range []*centraltest.Desk{m1, m2, m3} {
			d.Sync(t)
		}
		back := offline(m2, "Main 2")
		if dc := m1.CloseDay(t, true); dc.ExpiredNow != 2 {
			t.Fatalf("Main 1's close expired %d labels, want 2: the test's premise changed", dc.ExpiredNow)
		}
		m1.Sync(t)
		if v := m2.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("Main 2 offline: %+v", v)
		}
		back()
		m2.Sync(t)
		m3.Sync(t)
		if n := m3.Count(t, `SELECT count(*) FROM audit WHERE action = 'server_flag'`); n != 1 {
			t.Fatalf("Main 3 keeps %d notes of the server, want the flag of Main 2's redemption: the test's premise changed", n)
		}
		if err := h.DB.SetStationSite(ctx, "Main 3", "North"); err != nil {
			t.Fatal(err)
		}
		m3.Sync(t) // starts over from North's snapshot
		h.Now = h.Now.Add(time.Minute)
		if u := m2.Undo(t, codes[0], "wrong parcel"); u.Status != app.StatusExpired {
			t.Fatalf("Main 2's undo left the label %s, want expired: the test's premise changed", u.Status)
		}
		m2.Sync(t)
		m3.Sync(t)
		v, err := m3.Svc.Check(ctx, codes[0])
		if err != nil {
			t.Fatal(err)
		}
		if v.Record != nil && v.Record.Status != app.StatusExpired {
			t.Errorf("Main 3, moved to North, holds main's label %s as %s; the server has it expired (Main 2's redemption undone)", codes[0], v.Record.Status)
		}
	})
}

// TestMovedDeskDropsACopyOnlyAnotherDesksUndoNames: Main 1 hands a label
// over online and its supervisor takes it back; Main 2 reads both changes
// (its copy records Main 1's undo, as the label's history shows it).
// Moved to South, Main 2 starts over from South's snapshot, which does not
// bring the label: Main 2 did nothing with it. The undo is Main 1's, not
// Main 2's, so the copy goes. Main 1 then hands the label over again, a
// change South never gets: Main 2 holds the label as the server has it
// (used), or not at all; it kept its copy unused because of the undo.
func TestMovedDeskDropsACopyOnlyAnotherDesksUndoNames(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h := centraltest.New(t, dbPath, 0)
		m1 := h.Desk(t, "Main 1", "A", h.Station(t, "Main 1", "A"))
		m2 := h.Desk(t, "Main 2", "B", h.Station(t, "Main 2", "B"))
		siteDesk(t, h, "South", "South 1", "S") // South exists
		codes := m1.Issue(t, 2)
		m1.Sync(t)
		if v := m1.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("Main 1 online: %+v", v)
		}
		h.Now = h.Now.Add(time.Minute)
		if u := m1.Undo(t, codes[0], "wrong parcel"); u.Status != app.StatusUnused {
			t.Fatalf("Main 1's undo left the label %s, want unused: the test's premise changed", u.Status)
		}
		m1.Sync(t)
		m2.Sync(t)
		if n := m2.Count(t, `SELECT count(*) FROM undos`); n != 1 {
			t.Fatalf("Main 2 keeps %d undos, want Main 1's: the test's premise changed", n)
		}
		if err := h.DB.SetStationSite(ctx, "Main 2", "South"); err != nil {
			t.Fatal(err)
		}
		m2.Sync(t) // starts over from South's snapshot
		h.Now = h.Now.Add(time.Minute)
		if v := m1.Redeem(t, codes[0], "wang"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("Main 1 online again: %+v", v)
		}
		m2.Sync(t)
		m2.Sync(t)
		usedOrGone(t, m2, codes[0], "Main 2, moved to South,", "Main 1")
	})
}

// usedOrGone fails the test unless desk d holds the label as used, as the
// server has it (redeemed by whom), or does not hold it at all.
func usedOrGone(t *testing.T, d *centraltest.Desk, code, desk, whom string) {
	t.Helper()
	v, err := d.Svc.Check(context.Background(), code)
	if err != nil {
		t.Fatal(err)
	}
	if v.Record != nil && v.Record.Status != app.StatusUsed {
		t.Errorf("%s holds main's label %s as %s; the server has it used by %s", desk, code, v.Record.Status, whom)
	}
}
