package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// TestReportBySite: 'report --site S' lists the conflicts over S's labels
// and the flagged events of S's desks, and nothing of another site's; the
// whole report names each one's site; a site that does not exist is a
// usage error that lists the sites. Real desks on a real server, both
// engines.
func TestReportBySite(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h := centraltest.New(t, dbPath, 0)
		n1, _ := h.SiteDesk(t, "North", "North 1", "A")
		n2, _ := h.SiteDesk(t, "North", "North 2", "B")
		s1, _ := h.SiteDesk(t, "South", "South 1", "C")
		s2, s2token := h.SiteDesk(t, "South", "South 2", "D")
		north, south := n1.Issue(t, 2), s1.Issue(t, 2)
		for _, d := range []*centraltest.Desk{n1, n2, s1, s2} {
			d.Sync(t)
		}
		// One double use in each site, made while its desks were apart.
		for _, pair := range [][2]*centraltest.Desk{{n1, n2}, {s1, s2}} {
			code := north[0]
			if pair[0] == s1 {
				code = south[0]
			}
			for _, d := range pair {
				d.Offline(func() {
					if v := d.Redeem(t, code, "li"); v.Outcome != app.OutcomeRedeemed {
						t.Fatalf("offline redemption of %s: %+v", code, v)
					}
				})
			}
			for _, d := range pair {
				d.Sync(t)
			}
		}
		// A South desk's offline redemption at an impossible time: flagged.
		var out struct{ Results []protocol.Result }
		ev := protocol.Event{EventID: "south-1970-redeem", Kind: "redeem", Code: south[1], Operator: "wang", At: 5, Offline: true}
		h.Call(t, "POST", "/v1/events", s2token, h.Ring, map[string]any{"events": []protocol.Event{ev}}, &out)

		now := func() time.Time { return h.Now }
		type doc struct {
			Site      string
			Conflicts []struct {
				Code, Site string
			}
			FlaggedEvents []struct {
				EventID string `json:"event_id"`
				Site    string
			} `json:"flagged_events"`
		}
		read := func(site string) doc {
			t.Helper()
			var buf bytes.Buffer
			if err := report(ctx, h.DB, now, "", site, &buf); err != nil {
				t.Fatalf("report --site %q: %v", site, err)
			}
			var d doc
			if err := json.Unmarshal(buf.Bytes(), &d); err != nil {
				t.Fatalf("report --site %q: %v\n%s", site, err, buf.String())
			}
			return d
		}
		all := read("")
		if len(all.Conflicts) != 2 || len(all.FlaggedEvents) == 0 {
			t.Fatalf("the whole report: %+v, want 2 conflicts and the flagged event", all)
		}
		for _, k := range all.Conflicts {
			if want := map[string]string{north[0]: "North", south[0]: "South"}[k.Code]; k.Site != want {
				t.Errorf("conflict over %s reported in site %q, want %q", k.Code, k.Site, want)
			}
		}
		got := read("north")
		if got.Site != "North" || len(got.Conflicts) != 1 || got.Conflicts[0].Code != north[0] || len(got.FlaggedEvents) != 0 {
			t.Errorf("report --site north: %+v, want North's one conflict over %s and no flagged event", got, north[0])
		}
		got = read("South")
		if len(got.Conflicts) != 1 || got.Conflicts[0].Code != south[0] {
			t.Errorf("report --site South: conflicts %+v, want the one over %s", got.Conflicts, south[0])
		}
		found := false
		for _, f := range got.FlaggedEvents {
			found = found || f.EventID == "south-1970-redeem"
			if f.Site != "South" {
				t.Errorf("report --site South lists a flagged event of site %q", f.Site)
			}
		}
		if !found {
			t.Errorf("report --site South: flagged %+v, want South 2's redemption at 1970", got.FlaggedEvents)
		}
		err := report(ctx, h.DB, now, "", "West", &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), `"West"`) || !strings.Contains(err.Error(), "North") {
			t.Errorf("report --site West: %v, want a usage error naming the sites", err)
		}
	})
}
