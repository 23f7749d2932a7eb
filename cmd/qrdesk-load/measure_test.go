package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/deskclient"
	"qrdesk/protocol"
)

// TestConvergenceOtherSitesLabel: a desk of one site redeems a label of
// another online, the last change of the run, for every two of three
// sites. The server writes the redemption in the label's site's feed and a
// copy, at a position of its own, in the desk's site's feed (the desk
// holds the label now). The label's site's desks read their feed to the
// end and have the redemption: the report measures their lag at its
// position in their own site's feed, and neither says it never arrived nor
// that it is missing from the label's site's feed.
//
// The report took the position from the first site's feed (in the run's
// order) that held the label: the copy, when the desk's site comes first
// and the copy after the label's change, at a position the label's site's
// desks never pass once nothing follows it in their feed (about one
// TestLoadSites run in three). On SQLite the copy always comes after; on
// PostgreSQL one statement writes both, in an order of the plan's choosing
// (here the copy comes after for 002's redemption of a 003 label): every
// pair is tried, so each engine meets the case.
func TestConvergenceOtherSitesLabel(t *testing.T) {
	for _, engine := range []string{"SQLite", "PostgreSQL"} {
		t.Run(engine, func(t *testing.T) {
			ctx := context.Background()
			l := sitesLoad(t, engine, 3)
			n := 0
			for _, from := range l.sites {
				for k, to := range l.sites {
					if from == to {
						continue
					}
					t.Run(fmt.Sprintf("%s/%s", from.name[len(from.name)-3:], to.name[len(to.name)-3:]), func(t *testing.T) {
						d := from.desks[0]
						labels, err := newLabels(l.keys, 1)
						if err != nil {
							t.Fatal(err)
						}
						l.addLabels(labels, k)
						if err := uploadLabels(ctx, to.desks[0].c, l.ring, labels); err != nil {
							t.Fatal(err)
						}
						// Redeemed online, as desk.scan records it.
						l.hold(d.site, labels[0])
						ev := protocol.Event{EventID: d.nextEventID(), Kind: protocol.KindRedeem, Code: labels[0], Operator: "load", At: time.Now().Unix()}
						r, err := d.c.Redeem(ctx, l.ring, ev)
						if err != nil || r.Outcome != protocol.OutcomeRedeemed || r.Site != to.name {
							t.Fatalf("redeem %s of site %s at a desk of site %s: %+v %v; want redeemed, naming the label's site", labels[0], to.name, from.name, r, err)
						}
						l.online = append(l.online, onlineRedemption{code: labels[0], desk: d.i, site: k, at: l.since()})
						l.usedBy[k] = append(l.usedBy[k], usedLabel{code: labels[0], desk: d.i})
						l.stats.Scans++
						l.stats.OnlineRedeemed++
						l.stats.Acknowledged++
						n++
						for _, d := range l.desks {
							if err := d.download(ctx, 0); err != nil {
								t.Fatal(err)
							}
						}
						walk, err := l.walkFeeds(ctx)
						if err != nil {
							t.Fatal(err)
						}
						rep := l.report(time.Second, n, 0, walk, &procWatch{})
						if len(rep.Problems) > 0 || rep.Converge.NotArrived != 0 || rep.Converge.Redemptions != n || rep.Counts.Lost != 0 {
							t.Fatalf("problems %q, convergence %+v, %d lost; want none, %d redemptions measured", rep.Problems, rep.Converge, rep.Counts.Lost, n)
						}
					})
				}
			}
		})
	}
}

// sitesLoad is a load against a new server on engine, with one desk in
// each of n sites, following the feed from its head (the labels of the
// tests come after it).
func sitesLoad(t *testing.T, engine string, n int) *load {
	t.Helper()
	ctx := context.Background()
	db, _, url := loadServer(t, engine)
	l := newLoad(config{server: url, db: db, sites: n, onlineTimeout: 15 * time.Second}, io.Discard)
	var err error
	if l.keys, err = app.LoadKeys(filepath.Join(t.TempDir(), "load.key"), true); err != nil {
		t.Fatal(err)
	}
	l.ring = l.keys.RingID()
	stations, err := enrol(ctx, db, l.runID, n, l.keys, n, "")
	if err != nil {
		t.Fatal(err)
	}
	for i, st := range stations {
		d := &desk{l: l, i: i, c: deskclient.New(url, st.token), learned: map[string]int{}, online: true}
		en, err := d.c.Enrol(ctx, l.ring, nil)
		if err != nil {
			t.Fatal(err)
		}
		d.enrolled(en, true)
		l.desks = append(l.desks, d)
	}
	l.groupSites()
	if len(l.sites) != n {
		t.Fatalf("%d sites, want %d", len(l.sites), n)
	}
	if l.head0, err = l.feedHead(ctx, l.desks[0].c, 0); err != nil {
		t.Fatal(err)
	}
	l.start = time.Now()
	for _, d := range l.desks {
		d.cursor = l.head0
		d.periods = []period{{on: 0}} // following the feed to the end
	}
	return l
}
