package multidesk_test

// Answers about another site's label (an online scan refused "already
// used", "disabled", "expired"; a refused undo or disable) meet that
// label's older changes in the asking desk's site feed. Each test states
// what is expected; one that fails on the current code is skipped with
// t.Skip("open: ...") (docs/review/s46-hostile.md).

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

// siteChanges counts the changes of code in the feed of site.
func siteChanges(t *testing.T, h *centraltest.Harness, site, code string) int {
	t.Helper()
	return centraltest.Count(t, h.DB, `SELECT count(*) FROM changes WHERE code = ? AND site = (SELECT id FROM sites WHERE name = ?)`, code, site)
}

// TestRepeatedCrossSiteScansDoNotGrowTheFeed: a North clerk scans a used
// label of main again and again (a customer waving the same slip; a
// scanner set to repeat). Each scan is answered "already used", and each
// answer must leave every North desk's copy used after its sync. But the
// status has not changed: North's feed, which every North desk downloads,
// must not gain a change for every scan. At most one change after the
// first answer, however many scans.
func TestRepeatedCrossSiteScansDoNotGrowTheFeed(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 0)
		m1 := h.Desk(t, "Main 1", "A", h.Station(t, "Main 1", "A"))
		n1, tok := h.SiteDesk(t, "North", "North 1", "N")
		n2 := siteDesk(t, h, "North", "North 2", "P")
		code := m1.Issue(t, 1)[0]
		m1.Sync(t)
		if v := m1.Redeem(t, code, "wang"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("Main 1 online: %+v", v)
		}
		h.Now = h.Now.Add(time.Minute)
		if v := n1.Redeem(t, code, "li"); v.Outcome != app.OutcomeAlreadyUsed {
			t.Fatalf("North 1 online: %+v", v)
		}
		first := siteChanges(t, h, "North", code)
		const scans = 20
		for i := 0; i < scans; i++ {
			h.Now = h.Now.Add(time.Second)
			// What a desk sends for a scan it asks the server about: a
			// new event id each time.
			var r protocol.Result
			ev := protocol.Event{EventID: fmt.Sprintf("againscan%04d", i), Code: code, Operator: "li", At: h.Now.Unix()}
			if st := h.Call(t, "POST", "/v1/redeem", tok, h.Ring, ev, &r); st != 200 || r.Outcome != protocol.OutcomeAlreadyUsed {
				t.Fatalf("North 1 online, scan %d: %d %+v", i, st, r)
			}
		}
		got := siteChanges(t, h, "North", code)
		if got > first+1 {
			t.Errorf("North's feed holds %d changes of %s after %d more scans answered 'already used' (%d after the first): the feed grows with every scan of a label whose status never changed", got, code, scans, first)
		}
		n1.Sync(t)
		n2.Sync(t)
		for name, d := range map[string]*centraltest.Desk{"North 1": n1} {
			if got := d.Status(t, code); got != app.StatusUsed {
				t.Errorf("%s's copy of %s is %s, the server's used", name, code, got)
			}
		}
	})
}

// TestSiteCopyOfAReplacementFollowsWhenItsHolderMovesAway: North 1
// redeems main's label M online and undoes it (North holds M), then
// replaces it online by Y (main's, as M's entitlement). North 2 reads the
// replace change from North's feed and so holds Y, unused. North 1 is
// moved to South; Main 1 hands Y over online, and the server sends that
// change where the desks holding Y are now: main and South. North 2, which
// did nothing with either label, must not keep a copy of Y that says
// unused: it holds Y as the server has it, or not at all, and offline,
// under `site offline refuse`, it does not hand Y over.
func TestSiteCopyOfAReplacementFollowsWhenItsHolderMovesAway(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h := centraltest.New(t, dbPath, 0)
		m1 := h.Desk(t, "Main 1", "A", h.Station(t, "Main 1", "A"))
		n1 := siteDesk(t, h, "North", "North 1", "N")
		n2 := siteDesk(t, h, "North", "North 2", "P")
		siteDesk(t, h, "South", "South 1", "S")
		if err := h.DB.SetCrossSiteOffline(ctx, protocol.CrossSiteRefuse); err != nil {
			t.Fatal(err)
		}
		m := m1.Issue(t, 1)[0]
		m1.Sync(t)
		n1.Sync(t)
		n2.Sync(t)
		if v := n1.Redeem(t, m, "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("North 1 online: %+v", v)
		}
		h.Now = h.Now.Add(time.Minute)
		n1.Undo(t, m, "wrong parcel")
		h.Now = h.Now.Add(time.Minute)
		y := n1.Replace(t, m, "boss")
		n1.Sync(t)
		n2.Sync(t)
		if err := h.DB.SetStationSite(ctx, "North 1", "South"); err != nil {
			t.Fatal(err)
		}
		n1.Sync(t)
		m1.Sync(t)
		h.Now = h.Now.Add(time.Minute)
		if v := m1.Redeem(t, y, "wang"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("Main 1 online Y: %+v", v)
		}
		n2.Sync(t)
		usedOrGone(t, n2, y, "North 2", "Main 1")
		back := offline(n2, "North 2")
		v := n2.Redeem(t, y, "zhao")
		back()
		if v.Outcome == app.OutcomeRedeemed {
			t.Errorf("offline under refuse, North 2 handed over main's label %s, used at Main 1: %+v", y, v)
		}
	})
}
