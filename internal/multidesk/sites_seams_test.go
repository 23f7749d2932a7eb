package multidesk_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/central"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// TestCrossSiteConflictListedWhereItHappened: a label of site main is
// handed over offline at North 1 and online at Main 1. The double use is
// listed at every desk of both sites (North 1's clerk handed the parcel
// over; North 2 works beside it), and the server's record of it names
// both sites, so `report --site North` and the dashboard by site list it.
// Moved to South, North 1 still lists the conflict it took part in.
func TestCrossSiteConflictListedWhereItHappened(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 0)
		m1 := h.Desk(t, "Main 1", "A", h.Station(t, "Main 1", "A"))
		m2 := h.Desk(t, "Main 2", "B", h.Station(t, "Main 2", "B"))
		n1 := siteDesk(t, h, "North", "North 1", "N")
		n2 := siteDesk(t, h, "North", "North 2", "P")
		codes := m1.Issue(t, 2)
		for _, d := range []*centraltest.Desk{m1, m2, n1, n2} {
			d.Sync(t)
		}
		back := offline(n1, "North 1")
		if v := n1.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("North 1 offline: %+v", v)
		}
		back()
		h.Now = h.Now.Add(time.Minute)
		if v := m1.Redeem(t, codes[0], "wang"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("Main 1 online: %+v", v)
		}
		for _, d := range []*centraltest.Desk{n1, m1, m2, n2} {
			d.Sync(t)
		}
		if got := centraltest.Count(t, h.DB, `SELECT count(*) FROM conflicts WHERE code = ?`, codes[0]); got != 1 {
			t.Fatalf("the server holds %d conflicts over %s, want 1: the test's premise changed", got, codes[0])
		}
		ctx := context.Background()
		for name, d := range map[string]*centraltest.Desk{"Main 1": m1, "Main 2": m2, "North 1": n1, "North 2": n2} {
			list, err := d.DB.Conflicts(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(list) != 1 || list[0].Code != codes[0] {
				t.Errorf("%s lists conflicts %+v, want the one over %s", name, list, codes[0])
			}
		}
		day := app.Day(h.Now)
		records, err := h.DB.ConflictRecords(ctx, day.Unix(), day.AddDate(0, 0, 1).Unix())
		if err != nil {
			t.Fatal(err)
		}
		if len(records) != 1 || !slices.Contains(records[0].Sites, "North") || !slices.Contains(records[0].Sites, "main") || records[0].Site != "main" {
			t.Errorf("the server's conflict records %+v: want one of label site main, listed in main and North", records)
		}
		// Moved to South, North 1 starts over from South's snapshot and
		// still lists its double use.
		if err := h.DB.AddSite(ctx, "South", 1); err != nil {
			t.Fatal(err)
		}
		if err := h.DB.SetStationSite(ctx, "North 1", "South"); err != nil {
			t.Fatal(err)
		}
		n1.Sync(t)
		if list, err := n1.DB.Conflicts(ctx); err != nil || len(list) != 1 {
			t.Errorf("North 1 moved to South lists conflicts %+v (%v), want the one it took part in", list, err)
		}
	})
}

// TestConflictStaysInTheSitesWhereItHappened: North 1 redeems a main
// label offline, Main 1 online: a double use in which North took part (a
// North clerk handed the parcel over). Then North 1 is moved to South. A
// conflict belongs to the sites its desks were in when it happened, and its
// label's, fixed then: `report --site North` (ConflictRecord.In) and the
// dashboard by site still list it at North, and South, where nothing
// happened, does not gain it. Both engines (found by the s33 hostile
// review: the sites were recomputed from the desks' current sites).
func TestConflictStaysInTheSitesWhereItHappened(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h := centraltest.New(t, dbPath, 0)
		m1 := h.Desk(t, "Main 1", "A", h.Station(t, "Main 1", "A"))
		n1 := siteDesk(t, h, "North", "North 1", "N")
		codes := m1.Issue(t, 2)
		m1.Sync(t)
		n1.Sync(t)
		back := offline(n1, "North 1")
		if v := n1.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("North 1 offline: %+v", v)
		}
		back()
		h.Now = h.Now.Add(time.Minute)
		if v := m1.Redeem(t, codes[0], "wang"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("Main 1 online: %+v", v)
		}
		n1.Sync(t)
		m1.Sync(t)
		day := app.Day(h.Now)
		record := func() central.ConflictRecord {
			records, err := h.DB.ConflictRecords(ctx, day.Unix(), day.AddDate(0, 0, 1).Unix())
			if err != nil {
				t.Fatal(err)
			}
			if len(records) != 1 {
				t.Fatalf("conflict records %+v: want one", records)
			}
			return records[0]
		}
		if s := record().Sites; !slices.Contains(s, "North") {
			t.Fatalf("before the move the conflict's sites are %v: the test's premise changed", s)
		}
		if err := h.DB.AddSite(ctx, "South", 1); err != nil {
			t.Fatal(err)
		}
		if err := h.DB.SetStationSite(ctx, "North 1", "South"); err != nil {
			t.Fatal(err)
		}
		n1.Sync(t)
		k := record()
		if !slices.Contains(k.Sites, "North") || !k.In("North") {
			t.Errorf("finding: after North 1 moved to South the conflict it took part in (at North) lists sites %v: report --site North no longer lists a double use handed over at North", k.Sites)
		}
		if slices.Contains(k.Sites, "South") || k.In("South") {
			t.Errorf("after North 1 moved to South the conflict lists sites %v: South, where nothing happened, gained it", k.Sites)
		}
		if !k.In("main") {
			t.Errorf("the conflict lists sites %v, site %q: want its label's site main among them", k.Sites, k.Site)
		}
		// The moved desk still lists the double use it took part in.
		if list, err := n1.DB.Conflicts(ctx); err != nil || len(list) != 1 {
			t.Errorf("North 1 moved to South lists conflicts %+v (%v), want the one it took part in", list, err)
		}
	})
}

// TestOtherSitesLabelFollowsTheServer: North 1 redeems a label of site
// main online, and its supervisor undoes it. Main 1 then hands the label
// over. North 1's copy follows the server (used), and offline, under
// `site offline refuse`, North 1 does not hand it over again.
func TestOtherSitesLabelFollowsTheServer(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 0)
		m1 := h.Desk(t, "Main 1", "A", h.Station(t, "Main 1", "A"))
		n1 := siteDesk(t, h, "North", "North 1", "N")
		codes := m1.Issue(t, 2)
		m1.Sync(t)
		if err := h.DB.SetCrossSiteOffline(context.Background(), protocol.CrossSiteRefuse); err != nil {
			t.Fatal(err)
		}
		n1.Sync(t)
		if v := n1.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("North 1 online: %+v", v)
		}
		h.Now = h.Now.Add(time.Minute)
		n1.Undo(t, codes[0], "wrong parcel")
		n1.Sync(t)
		if got := centraltest.Count(t, h.DB, `SELECT count(*) FROM codes WHERE code = ? AND status = 'unused'`, codes[0]); got != 1 {
			t.Fatalf("the server does not hold %s unused after the undo: the test's premise changed", codes[0])
		}
		h.Now = h.Now.Add(time.Minute)
		if v := m1.Redeem(t, codes[0], "wang"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("Main 1 online: %+v", v)
		}
		n1.Sync(t)
		if got := n1.Status(t, codes[0]); got != app.StatusUsed {
			t.Errorf("North 1's copy of %s is %s, the server's used", codes[0], got)
		}
		back := offline(n1, "North 1")
		v := n1.Redeem(t, codes[0], "li")
		back()
		if v.Outcome == app.OutcomeRedeemed {
			t.Errorf("offline under refuse, North 1 handed %s over again: %+v", codes[0], v)
		}
		n1.Sync(t)
		if got := centraltest.Count(t, h.DB, `SELECT count(*) FROM conflicts WHERE code = ?`, codes[0]); got != 0 {
			t.Errorf("the server holds %d conflicts over %s, want none", got, codes[0])
		}
	})
}
