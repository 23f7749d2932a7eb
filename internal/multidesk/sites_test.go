package multidesk_test

import (
	"context"
	"strings"
	"testing"

	"qrdesk/app"
	"qrdesk/central"
	"qrdesk/deskclient"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// siteDesk enrols a desk in a site (added when new) and returns it.
func siteDesk(t *testing.T, h *centraltest.Harness, site, name, letter string) *centraltest.Desk {
	t.Helper()
	d, _ := h.SiteDesk(t, site, name, letter)
	return d
}

// TestSiteFeedStaysInItsSite: a desk downloads only its own site's labels
// and the changes to them, wherever they were made; another site's labels
// and their changes never reach it. Moved to another site, a desk starts
// over from that site's labels.
func TestSiteFeedStaysInItsSite(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 0)
		n1 := siteDesk(t, h, "North", "North 1", "A")
		n2 := siteDesk(t, h, "North", "North 2", "B")
		s1 := siteDesk(t, h, "South", "South 1", "C")
		north, south := n1.Issue(t, 3), s1.Issue(t, 3)
		for _, d := range []*centraltest.Desk{n1, s1, n2} {
			d.Sync(t)
		}
		// South 1 redeems a label of North (online: the server decides), and
		// one of its own.
		if v := s1.Redeem(t, north[0], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("South 1 redeeming North's label: %+v", v)
		}
		if v := s1.Redeem(t, south[0], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("South 1 redeeming its own label: %+v", v)
		}
		n2.Sync(t)
		if got := n2.Count(t, `SELECT count(*) FROM codes WHERE code IN (?, ?, ?)`, north[0], north[1], north[2]); got != 3 {
			t.Errorf("North 2 holds %d of North's 3 labels, want 3", got)
		}
		if got := n2.Count(t, `SELECT count(*) FROM codes WHERE code IN (?, ?, ?)`, south[0], south[1], south[2]); got != 0 {
			t.Errorf("North 2 holds %d of South's labels, want none", got)
		}
		if got := n2.Count(t, `SELECT count(*) FROM codes WHERE code = ? AND status = 'used'`, north[0]); got != 1 {
			t.Errorf("North 2 did not learn that South 1 used North's label %s", north[0])
		}
		// What the server sends North's desks: only North's labels' changes.
		var northID, southID int64
		for _, s := range mustSites(t, h) {
			switch s.Name {
			case "North":
				northID = s.ID
			case "South":
				southID = s.ID
			}
		}
		for site, foreign := range map[int64][]string{northID: south, southID: north[1:]} {
			changes, err := h.DB.SiteChanges(context.Background(), site, 0, 1000)
			if err != nil {
				t.Fatal(err)
			}
			for _, ch := range changes {
				for _, c := range foreign {
					if ch.Code == c {
						t.Errorf("site %d's feed carries %s of %s, a label of another site", site, ch.Kind, c)
					}
				}
			}
		}
		// Moved to South, North 2 starts over from South's labels.
		if err := h.DB.SetStationSite(context.Background(), "North 2", "South"); err != nil {
			t.Fatal(err)
		}
		n2.Sync(t)
		if got := n2.Count(t, `SELECT count(*) FROM codes WHERE code IN (?, ?, ?)`, south[0], south[1], south[2]); got != 3 {
			t.Errorf("North 2 moved to South holds %d of South's 3 labels, want 3", got)
		}
		if got := n2.Count(t, `SELECT count(*) FROM codes WHERE code = ? AND status = 'used'`, south[0]); got != 1 {
			t.Errorf("North 2 moved to South does not know %s was used", south[0])
		}
	})
}

func mustSites(t *testing.T, h *centraltest.Harness) []central.Site {
	t.Helper()
	list, err := h.DB.Sites(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// offline points a desk at a server that does not answer (connection
// refused) and returns a function that brings the real one back.
func offline(d *centraltest.Desk, name string) (back func()) {
	real := d.Svc.Remote
	d.Svc.Remote = deskclient.New("http://127.0.0.1:1", "qrd_test_"+strings.ReplaceAll(name, " ", "_"))
	return func() { d.Svc.Remote = real }
}

// TestCrossSiteScans: a label of another site scanned at a desk. Online,
// the server decides and the desk says where the label was issued.
// Offline, the desk follows the deployment's setting: refuse ("label of
// site North: ask the supervisor", nothing redeemed) or decide alone and
// report (two desks redeeming it offline are one conflict).
func TestCrossSiteScans(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		for _, mode := range []string{protocol.CrossSiteRefuse, protocol.CrossSiteDecide} {
			t.Run(mode, func(t *testing.T) {
				h := centraltest.New(t, dbPath, 0)
				n1 := siteDesk(t, h, "North", "North 1", "A")
				s1 := siteDesk(t, h, "South", "South 1", "C")
				s2 := siteDesk(t, h, "South", "South 2", "D")
				north := n1.Issue(t, 3)
				n1.Sync(t)
				if err := h.DB.SetCrossSiteOffline(context.Background(), mode); err != nil {
					t.Fatal(err)
				}
				s1.Sync(t)
				s2.Sync(t)
				if got := s1.Count(t, `SELECT count(*) FROM codes`); got != 0 {
					t.Fatalf("South 1 holds %d labels of North, want none", got)
				}
				// Online: the server decides; the verdict names the site.
				v := s1.Redeem(t, north[0], "li")
				if v.Outcome != app.OutcomeRedeemed || v.Site != "North" || !strings.Contains(v.Message(), "label of site North") {
					t.Fatalf("online, South 1 redeeming North's label: %+v (%q), want redeemed, site North", v, v.Message())
				}
				if v := s2.Redeem(t, north[0], "wang"); v.Outcome != app.OutcomeAlreadyUsed || v.Site != "North" {
					t.Fatalf("online, South 2 redeeming it again: %+v, want already_used, site North", v)
				}
				// Offline: both South desks scan North's second label.
				back1, back2 := offline(s1, "South 1"), offline(s2, "South 2")
				v1, v2 := s1.Redeem(t, north[1], "li"), s2.Redeem(t, north[1], "wang")
				back1()
				back2()
				s1.Sync(t)
				s2.Sync(t)
				used := h.Server(t).CountLabel(north[1], "used")
				conflicts := h.Server(t).Conflicts()[north[1]]
				switch mode {
				case protocol.CrossSiteRefuse:
					for _, v := range []app.Verdict{v1, v2} {
						if v.Outcome != app.OutcomeUnknown || v.Site != "North" || !strings.Contains(v.Message(), "label of site North: ask the supervisor") {
							t.Errorf("offline under refuse: %+v (%q), want refused naming site North", v, v.Message())
						}
					}
					if used != 0 || conflicts != 0 {
						t.Errorf("under refuse the label is used %d, conflicts %d: want neither", used, conflicts)
					}
				case protocol.CrossSiteDecide:
					for _, v := range []app.Verdict{v1, v2} {
						if v.Outcome != app.OutcomeRedeemed || v.Site != "North" {
							t.Errorf("offline under decide: %+v, want redeemed here, site North", v)
						}
					}
					if used != 1 || conflicts != 1 {
						t.Errorf("under decide, the double use: used %d, conflicts %d; want 1 and 1", used, conflicts)
					}
				}
				// A label of the desk's own site it does not hold yet is
				// decided alone offline whatever the setting.
				own := s1.Issue(t, 1)
				s1.Sync(t)
				back := offline(s2, "South 2")
				if v := s2.Redeem(t, own[0], "wang"); v.Outcome != app.OutcomeRedeemed || v.Site != "" {
					t.Errorf("offline, South 2 redeeming South's label: %+v, want redeemed, no site", v)
				}
				back()
			})
		}
	})
}
