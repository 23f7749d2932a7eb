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
	"qrdesk/deskclient"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
	"qrdesk/server"
)

// siteChanges counts the changes of code in the feed of site.
func siteChanges(t *testing.T, h *centraltest.Harness, site, code string) int {
	t.Helper()
	return h.Server(t).Count(`SELECT count(*) FROM changes WHERE code = ? AND site = (SELECT id FROM sites WHERE name = ?)`, code, site)
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

// copiesFollowServer checks each desk's copy of each code against the
// server's: the status, and for a used label the desk named by its
// standing redemption. A desk that does not hold the label passes; so does
// a desk whose own handover stands beside the server's record (a double
// use the server lists as a conflict).
func copiesFollowServer(t *testing.T, h *centraltest.Harness, desks map[string]*centraltest.Desk, codes ...string) {
	t.Helper()
	for name, d := range desks {
		for _, code := range codes {
			srv, station := h.Server(t).StatusAndStation(code)
			var mine, who string
			err := d.DB.SQL().QueryRow(`SELECT c.status, COALESCE((SELECT r.station FROM redemptions r WHERE r.code_id = c.id AND r.undone_at = 0), '')
				FROM codes c WHERE c.code = ?`, code).Scan(&mine, &who)
			if err != nil {
				continue // not held
			}
			if mine != srv {
				t.Errorf("%s's copy of %s is %s, the server's %s", name, code, mine, srv)
				continue
			}
			if srv == "used" && who != station && who != name {
				t.Errorf("%s's copy of %s is used by %q, the server's by %q", name, code, who, station)
			}
		}
	}
}

// TestReplacementRedeemedOfflineAtARevokedDesk: North 1 holds main's label
// M (it redeemed and undid it). Cut off from the server, its supervisor
// replaces M by Y and the parcel goes out on Y. Meanwhile North 1 is
// revoked and Main 1 hands M over online. North 1 comes back, is refused,
// is renewed and syncs. After every desk syncs, every copy of M and Y
// equals the server's, and the server lists the double use.
func TestReplacementRedeemedOfflineAtARevokedDesk(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h := centraltest.New(t, dbPath, 0)
		m1 := h.Desk(t, "Main 1", "A", h.Station(t, "Main 1", "A"))
		n1 := siteDesk(t, h, "North", "North 1", "N")
		n2 := siteDesk(t, h, "North", "North 2", "P")
		m := m1.Issue(t, 1)[0]
		m1.Sync(t)
		n1.Sync(t)
		n2.Sync(t)
		if v := n1.Redeem(t, m, "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("North 1 online: %+v", v)
		}
		h.Now = h.Now.Add(time.Minute)
		n1.Undo(t, m, "wrong parcel")
		n1.Sync(t)
		back := offline(n1, "North 1")
		h.Now = h.Now.Add(time.Minute)
		y := n1.Replace(t, m, "boss")
		if v := n1.Redeem(t, y, "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("North 1 offline, the replacement: %+v", v)
		}
		if err := h.DB.RevokeStation(ctx, "North 1", h.Now.Unix()); err != nil {
			t.Fatal(err)
		}
		h.Now = h.Now.Add(time.Minute)
		if v := m1.Redeem(t, m, "wang"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("Main 1 online M: %+v", v)
		}
		back()
		if _, err := n1.Svc.Sync(ctx); app.DeskRefusal(err) == nil {
			t.Fatalf("sync of revoked North 1: %v", err)
		}
		h.Now = h.Now.Add(11 * time.Second)
		if err := h.DB.RenewStation(ctx, "North 1", server.HashToken("qrd_renewed_n1")); err != nil {
			t.Fatal(err)
		}
		n1.Svc.Remote = deskclient.New(h.URL, "qrd_renewed_n1")
		for i := 0; i < 2; i++ {
			for _, d := range []*centraltest.Desk{n1, m1, n2} {
				d.Sync(t)
			}
		}
		copiesFollowServer(t, h, map[string]*centraltest.Desk{"Main 1": m1, "North 1": n1, "North 2": n2}, m, y)
		if n := h.Server(t).ConflictsBetween(m, y); n < 1 {
			t.Errorf("the server holds no conflict naming %s and %s", m, y)
		}
	})
}

// lastSiteChange reports whether the last change of code in site's feed
// carries status.
func lastSiteChange(t *testing.T, h *centraltest.Harness, site, code string, status app.Status) bool {
	t.Helper()
	const inSite = `code = ? AND site = (SELECT id FROM sites WHERE name = ?)`
	return h.Server(t).Count(`SELECT count(*) FROM changes WHERE `+inSite+` AND data LIKE ?
		AND seq = (SELECT max(seq) FROM changes WHERE `+inSite+`)`, code, site, `%"status":"`+string(status)+`"%`, code, site) == 1
}

// TestAnswerInAGroupWithAChangeRefreshesTheSite: the story of
// TestCrossSiteAnswerAfterAnOlderHolderChange (North's feed keeps North
// 1's undo of main's label M, and Main 1's redemption after it went to
// main and South alone), but North 2's refused event on M comes in one
// request after an event that writes a change of its own (its offline
// handover of a North label). On SQLite the server decides a request's
// events in one transaction: the refusal must still write M's status now
// to North's feed, after the older undo, or a desk told "used" reads
// "unused" last.
func TestAnswerInAGroupWithAChangeRefreshesTheSite(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 0)
		m1 := h.Desk(t, "Main 1", "A", h.Station(t, "Main 1", "A"))
		n1 := siteDesk(t, h, "North", "North 1", "N")
		n2, tok := h.SiteDesk(t, "North", "North 2", "P")
		siteDesk(t, h, "South", "South 1", "S")
		code := m1.Issue(t, 1)[0]
		m1.Sync(t)
		own := n2.Issue(t, 1)[0]
		n2.Sync(t)
		undoneInNorthThenUsedAtMain(t, h, m1, n1, code)
		if !lastSiteChange(t, h, "North", code, app.StatusUnused) {
			t.Fatalf("North's last change of %s is not the older undo's unused: the test's premise changed", code)
		}
		at := h.Now.Unix()
		var out struct{ Results []protocol.Result }
		evs := []protocol.Event{
			{EventID: "n2ownhandover", Kind: protocol.KindRedeem, Code: own, Operator: "zhao", At: at, Offline: true},
			{EventID: "n2disablemain", Kind: protocol.KindDisable, Code: code, Operator: "zhao", At: at, Offline: true, Reason: "torn"},
		}
		if st := h.Call(t, "POST", "/v1/events", tok, h.Ring, map[string]any{"events": evs}, &out); st != 200 || len(out.Results) != 2 {
			t.Fatalf("North 2's upload: %d %+v", st, out)
		}
		if r := out.Results[1]; r.Status != string(app.StatusUsed) {
			t.Fatalf("North 2's disable of %s answered %+v, want refused with status used: the test's premise changed", code, r)
		}
		if !lastSiteChange(t, h, "North", code, app.StatusUsed) {
			t.Errorf("after North 2 was answered that %s is used, North's last change of it does not say used: a North desk told used reads the older undo last", code)
		}
	})
}
