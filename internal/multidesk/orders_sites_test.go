package multidesk_test

import (
	"context"
	"sort"
	"testing"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// TestOrderNumberPerSite: two sites' warehouse systems both issue order
// 4711 (two customers: order numbers are per warehouse). Each site's desks
// issue and number their own order, a desk of the site that did not import
// the file knows the order as issued (re-importing there issues nothing
// twice), a scan names its own site's customer and parcels, and every
// handover reaches the WMS with the order number and the label's site, so
// the two orders 4711 are told apart by site.
func TestOrderNumberPerSite(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h := centraltest.New(t, dbPath, 0)
		a := h.Desk(t, "Desk A", "A", h.Station(t, "Desk A", "A")) // site main
		b := h.Desk(t, "Desk B", "B", h.Station(t, "Desk B", "B")) // site main
		n, _ := h.SiteDesk(t, "North", "Desk N", "N")
		m, _ := h.SiteDesk(t, "North", "Desk M", "M")
		mainOrder := importOrders(t, a, "order,customer,parcels\n4711,Müller,3\n")["4711"]
		northOrder := importOrders(t, n, "order,customer,parcels\n4711,Weber,2\n")["4711"]
		if len(mainOrder) != 3 || len(northOrder) != 2 {
			t.Fatalf("main issued %d labels, North %d; want 3 and 2", len(mainOrder), len(northOrder))
		}
		for range 2 {
			for _, d := range []*centraltest.Desk{a, n, b, m} {
				d.Sync(t)
			}
		}
		// The site's other desk has the order as issued: its own site's.
		for _, tc := range []struct {
			d        *centraltest.Desk
			file     string
			customer string
			parcels  int
		}{{b, "order,customer,parcels\n4711,Müller,3\n", "Müller", 3}, {m, "order,customer,parcels\n4711,Weber,2\n", "Weber", 2}} {
			f, err := app.ParseOrderFile([]byte(tc.file), app.EncodingAuto, nil)
			if err != nil {
				t.Fatal(err)
			}
			res, err := tc.d.Svc.ImportOrders(ctx, f, app.OrderImport{Operator: "li"})
			if err != nil || len(res.Issued) != 0 || len(res.Already) != 1 || res.Already[0].Parcels != tc.parcels {
				t.Fatalf("%s imports its site's order 4711 again: issued %+v, issued before %+v, %v; want it named as issued before, %d parcels",
					tc.customer, res.Issued, res.Already, err, tc.parcels)
			}
		}
		wantParcel(t, "desk B (main), main's parcel 2", b.Redeem(t, mainOrder[1], "wang"),
			app.OrderParcel{Number: "4711", Customer: "Müller", Parcel: 2, Parcels: 3, Waiting: []int{1, 3}})
		wantParcel(t, "desk M (North), North's parcel 1", m.Redeem(t, northOrder[0], "zhao"),
			app.OrderParcel{Number: "4711", Customer: "Weber", Parcel: 1, Parcels: 2, Waiting: []int{2}})
		b.Sync(t)
		m.Sync(t)
		// The WMS: each handover names the order and its label's site.
		evs, _, err := h.DB.Handovers(ctx, 0, 1000)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, ev := range evs {
			if ev.Type == "redeem" {
				got = append(got, ev.OrderRef+" "+ev.Site+" "+ev.Desk+" "+ev.Label)
			}
		}
		sort.Strings(got)
		want := []string{"4711 North Desk M " + northOrder[0], "4711 main Desk B " + mainOrder[1]}
		sort.Strings(want)
		if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
			t.Fatalf("the WMS gets the redemptions %q, want %q", got, want)
		}
	})
}

// TestOrderSpelledAnotherWayAtAnotherDesk: desk A imports orders So-7 and
// STRASSE-4; desk B of the site, after its sync, gets a file spelling them
// SO-7 and straße-4. They are the orders A issued (named as issued
// before), not new ones: a parcel never gets two labels at one site. B
// held A's labels under refs it compared in their upper and lower case
// only, and issued both again.
func TestOrderSpelledAnotherWayAtAnotherDesk(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		_, a, b, _ := centraltest.TwoDesks(t, dbPath, 0)
		issued := importOrders(t, a, "order,customer,parcels\nSo-7,Kim,2\nSTRASSE-4,Weber,1\n")
		if len(issued["So-7"]) != 2 || len(issued["STRASSE-4"]) != 1 {
			t.Fatalf("desk A issued %v", issued)
		}
		a.Sync(t)
		b.Sync(t)
		f, err := app.ParseOrderFile([]byte("order,customer,parcels\nSO-7,Kim,2\nstraße-4,Weber,1\n"), app.EncodingAuto, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := b.Svc.ImportOrders(ctx, f, app.OrderImport{Operator: "wang"})
		if err != nil || len(res.Issued) != 0 || len(res.Already) != 2 {
			t.Fatalf("desk B: issued %+v, named as issued before %+v, %v; want both named", res.Issued, res.Already, err)
		}
		for _, o := range res.Already {
			if (o.Number != "So-7" || o.Customer != "Kim" || o.Parcels != 2) && (o.Number != "STRASSE-4" || o.Customer != "Weber" || o.Parcels != 1) {
				t.Errorf("desk B names %+v, want desk A's order in its spelling, customer and parcels", o)
			}
		}
	})
}

// TestOrderOfAnotherSiteHeldAfterAWrongDockScan: desk N of site North
// scans a parcel of main's order 4711 (it went to the wrong dock), so it
// holds that label; North's own order 4711 arrives in its file after. It
// is North's order, not main's: desk N issues it.
func TestOrderOfAnotherSiteHeldAfterAWrongDockScan(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 0)
		a := h.Desk(t, "Desk A", "A", h.Station(t, "Desk A", "A")) // site main
		n, _ := h.SiteDesk(t, "North", "Desk N", "N")
		mainOrder := importOrders(t, a, "order,customer,parcels\n4711,Müller,3\n")["4711"]
		a.Sync(t)
		n.Sync(t)
		if v := n.Redeem(t, mainOrder[1], "zhao"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk N scans main's parcel 2: %s %s", v.Outcome, v.Reason)
		}
		n.Sync(t)
		if c, err := n.Svc.Check(context.Background(), mainOrder[1]); err != nil || c.Outcome != app.OutcomeAlreadyUsed {
			t.Fatalf("desk N does not hold main's parcel 2 as used: %+v %v", c, err)
		}
		own := importOrders(t, n, "order,customer,parcels\n4711,Weber,2\n")["4711"]
		if len(own) != 2 {
			t.Fatalf("desk N issued %d labels for North's order 4711, want 2 (it holds one label of main's 4711)", len(own))
		}
	})
}
