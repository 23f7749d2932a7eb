package multidesk_test

import (
	"context"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/central"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// feedFirst is a desk's link to the server on which the feed's copy of
// each online redemption lands before the server's answer: the desk's
// follower applies the feed between the server deciding and the desk
// recording the answer.
type feedFirst struct {
	app.Remote
	desk *centraltest.Desk
}

func (f feedFirst) Redeem(ctx context.Context, ring string, ev protocol.Event) (protocol.Result, error) {
	r, err := f.Remote.Redeem(ctx, ring, ev)
	if err != nil {
		return r, err
	}
	st, err := f.desk.DB.SyncState(ctx)
	if err != nil {
		return r, err
	}
	changes, next, err := f.Remote.Feed(ctx, ring, st.Cursor, st.Check, 0)
	if err != nil {
		return r, err
	}
	return r, f.desk.DB.ApplyChanges(ctx, changes, next)
}

// dashboardRows is the server's dashboard row of every desk on the
// harness's day, by station.
func dashboardRows(t *testing.T, h *centraltest.Harness) map[string]central.DeskDay {
	t.Helper()
	day := app.Day(h.Now)
	dash, err := h.DB.DayActivity(context.Background(), day.Unix(), day.AddDate(0, 0, 1).Unix())
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]central.DeskDay{}
	for _, d := range dash.Desks {
		rows[d.Station] = d
	}
	return rows
}

// checkOwnFigures compares a desk's own figures (stats and close-day) with
// its dashboard row.
func checkOwnFigures(t *testing.T, name string, d *centraltest.Desk, row central.DeskDay) {
	t.Helper()
	st, err := d.Svc.Stats(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	f := d.CloseDay(t, false).Figures
	if st.Redeemed != row.Redeemed || f.Redeemed != row.Redeemed || f.Conflicts != row.Conflicts {
		t.Errorf("%s: stats redeemed %d, close-day redeemed %d, conflicts %d; its dashboard row: redeemed %d, conflicts %d",
			name, st.Redeemed, f.Redeemed, f.Conflicts, row.Redeemed, row.Conflicts)
	}
}

// TestOwnRedemptionsWhenTheFeedComesFirst: a desk that follows the feed
// redeems five labels online, and each time the feed's copy of its
// redemption lands before the server's answer. Its own figures still count
// five: a redemption is the desk's by its event id, whichever copy
// arrives first.
func TestOwnRedemptionsWhenTheFeedComesFirst(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 6)
		b.Svc.Remote = feedFirst{Remote: b.Svc.Remote, desk: b}
		for _, code := range codes[:5] {
			h.Now = h.Now.Add(1500 * time.Millisecond)
			if v := b.Redeem(t, code, "bob"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("desk B: %+v", v)
			}
		}
		b.Sync(t)
		a.Sync(t)
		rows := dashboardRows(t, h)
		if rows["Desk B"].Redeemed != 5 {
			t.Fatalf("dashboard %+v: the test's premise changed", rows)
		}
		checkOwnFigures(t, "Desk B", b, rows["Desk B"])
		checkOwnFigures(t, "Desk A", a, rows["Desk A"])
	})
}

// TestRedemptionOfRecordCountsOnce: desks A and B hand one label over
// while offline, A a minute first; B syncs first. A's redemption is the
// redemption of record (it came first by a trusted clock): the dashboard
// credits it to A and counts B's as the double use, as Conflicts and Code
// lookup name them, and each desk's own figures say the same.
func TestRedemptionOfRecordCountsOnce(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 2)
		a.Offline(func() {
			if v := a.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("desk A offline: %+v", v)
			}
		})
		h.Now = h.Now.Add(time.Minute)
		b.Offline(func() {
			if v := b.Redeem(t, codes[0], "bob"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("desk B offline: %+v", v)
			}
		})
		b.Sync(t)
		a.Sync(t)
		b.Sync(t)
		ctx := context.Background()
		hist, err := h.DB.CodeHistory(ctx, codes[0])
		if err != nil {
			t.Fatal(err)
		}
		if hist.Code.UsedStation != "Desk A" || len(hist.Conflicts) != 1 || hist.Conflicts[0].FirstStation != "Desk A" || hist.Conflicts[0].SecondStation != "Desk B" {
			t.Fatalf("code lookup: used at %q, conflicts %+v; want the redemption of record Desk A's, Desk B's the double use", hist.Code.UsedStation, hist.Conflicts)
		}
		rows := dashboardRows(t, h)
		if rows["Desk A"].Redeemed != 1 || rows["Desk A"].Conflicts != 0 || rows["Desk B"].Redeemed != 0 || rows["Desk B"].Conflicts != 1 {
			t.Errorf("dashboard: Desk A redeemed %d, conflicts %d; Desk B redeemed %d, conflicts %d; want A 1/0 and B 0/1 (A's is the redemption of record)",
				rows["Desk A"].Redeemed, rows["Desk A"].Conflicts, rows["Desk B"].Redeemed, rows["Desk B"].Conflicts)
		}
		checkOwnFigures(t, "Desk A", a, rows["Desk A"])
		checkOwnFigures(t, "Desk B", b, rows["Desk B"])
	})
}

// TestRedemptionOfRecordTakenOverTwice: desks C, B and A hand one label
// over while offline, a minute apart in that order, and sync in the
// reverse order. A's, first to arrive, is redeemed; B's, earlier, takes
// the record over (a conflict naming B's first, A's second); C's, earlier
// still, takes it over again (a conflict naming C's first, B's second).
// B's redemption is named first by one conflict and second by the other:
// it was displaced, so it is a double use. Code lookup names C's the
// redemption of record; the dashboard credits C alone with the
// redemption and counts one conflict each at A and B, and each desk's own
// figures say the same. (Seen in the property test after a server
// restore, when the desks' events were sent again latest first.)
func TestRedemptionOfRecordTakenOverTwice(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 2)
		c := h.Desk(t, "Desk C", "C", h.Station(t, "Desk C", "C"))
		c.Sync(t)
		for _, d := range []struct {
			name string
			desk *centraltest.Desk
		}{{"Desk C", c}, {"Desk B", b}, {"Desk A", a}} {
			d.desk.Offline(func() {
				if v := d.desk.Redeem(t, codes[0], "clerk"); v.Outcome != app.OutcomeRedeemed {
					t.Fatalf("%s offline: %+v", d.name, v)
				}
			})
			h.Now = h.Now.Add(time.Minute)
		}
		a.Sync(t)
		b.Sync(t)
		c.Sync(t)
		a.Sync(t)
		b.Sync(t)
		ctx := context.Background()
		hist, err := h.DB.CodeHistory(ctx, codes[0])
		if err != nil {
			t.Fatal(err)
		}
		if hist.Code.UsedStation != "Desk C" || len(hist.Conflicts) != 2 {
			t.Fatalf("code lookup: used at %q, conflicts %+v; want the redemption of record Desk C's and two conflicts (the premise)", hist.Code.UsedStation, hist.Conflicts)
		}
		rows := dashboardRows(t, h)
		for name, want := range map[string]central.DeskDay{"Desk A": {Conflicts: 1}, "Desk B": {Conflicts: 1}, "Desk C": {Redeemed: 1}} {
			if got := rows[name]; got.Redeemed != want.Redeemed || got.Conflicts != want.Conflicts {
				t.Errorf("dashboard: %s redeemed %d, conflicts %d; want %d, %d (Desk C's is the redemption of record)", name, got.Redeemed, got.Conflicts, want.Redeemed, want.Conflicts)
			}
		}
		checkOwnFigures(t, "Desk A", a, rows["Desk A"])
		checkOwnFigures(t, "Desk B", b, rows["Desk B"])
		checkOwnFigures(t, "Desk C", c, rows["Desk C"])
	})
}

// TestTakeoverAfterAnotherDesksUndoCountsAsOwn: Desk B hands label X over
// online; desk A, offline, hands it over too a minute later. B's
// supervisor undoes B's redemption, and desk C hands X over online. When A
// syncs, its offline use is earlier than C's: it takes the record over
// (the conflict names A first, C second). A learns of B's undo from the
// feed after sending its own redemption, which stops it standing there
// until the server's word on it comes; that word is the conflict, not a
// redeem change. The conflict makes A's redemption stand again: A's label
// is used, by A, and A's own figures count the redemption, as its
// dashboard row does.
func TestTakeoverAfterAnotherDesksUndoCountsAsOwn(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h := centraltest.New(t, dbPath, 0)
		a := h.Desk(t, "Desk A", "A", h.Station(t, "Desk A", "A"))
		b := h.Desk(t, "Desk B", "B", h.Station(t, "Desk B", "B"))
		c := h.Desk(t, "Desk C", "C", h.Station(t, "Desk C", "C"))
		x := a.Issue(t, 1)[0]
		for _, d := range []*centraltest.Desk{a, b, c} {
			d.Sync(t)
		}
		if v := b.Redeem(t, x, "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("Desk B online: %+v", v)
		}
		h.Now = h.Now.Add(time.Minute)
		back := offline(a, "Desk A")
		if v := a.Redeem(t, x, "wang"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("Desk A offline: %+v", v)
		}
		back()
		h.Now = h.Now.Add(time.Minute)
		if u := b.Undo(t, x, "wrong parcel"); u.Undoes == "" {
			t.Fatalf("Desk B's undo: %+v", u)
		}
		b.Sync(t)
		h.Now = h.Now.Add(time.Minute)
		if v := c.Redeem(t, x, "zhao"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("Desk C online after B's undo: %+v", v)
		}
		a.Sync(t)
		a.Sync(t)
		hist, err := h.DB.CodeHistory(ctx, x)
		if err != nil {
			t.Fatal(err)
		}
		if hist.Code.UsedStation != "Desk A" || len(hist.Conflicts) != 1 {
			t.Fatalf("the server's redemption of record is %q's with %d conflicts, want Desk A's and one (the earlier use takes it over): the test's premise changed", hist.Code.UsedStation, len(hist.Conflicts))
		}
		v, err := a.Svc.Check(ctx, x)
		if err != nil || v.Record == nil {
			t.Fatalf("Desk A's copy of X: %+v %v", v, err)
		}
		if v.Record.Status != app.StatusUsed || v.Record.UsedStation != "Desk A" {
			t.Errorf("Desk A's copy of X is %s, used by %q; the server has it used by Desk A", v.Record.Status, v.Record.UsedStation)
		}
		checkOwnFigures(t, "Desk A", a, dashboardRows(t, h)["Desk A"])
	})
}
