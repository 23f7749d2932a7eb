package multidesk_test

// Answers about another site's label (an online scan refused "already
// used", "disabled", "expired"; a refused undo or disable) meet that
// label's older changes in the asking desk's site feed. Each test states
// what is expected; one that fails on the current code is skipped with
// t.Skip("open: ...") (docs/review/s46-hostile.md).

import (
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
