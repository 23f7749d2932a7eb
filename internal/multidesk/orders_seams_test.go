package multidesk_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// TestOrderParcelAfterAnUndo: desk B hands over parcel 2 of order 4711
// and undoes it (wrong parcel): the parcel waits again at every desk, and
// its next scan names it as parcel 2 of 3 again.
func TestOrderParcelAfterAnUndo(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		_, a, b, _ := centraltest.TwoDesks(t, dbPath, 0)
		p := importOrders(t, a, "order,customer,parcels\n4711,Müller,3\n")["4711"]
		a.Sync(t)
		b.Sync(t)
		wantParcel(t, "desk B, parcel 2", b.Redeem(t, p[1], "wang"),
			app.OrderParcel{Number: "4711", Customer: "Müller", Parcel: 2, Parcels: 3, Waiting: []int{1, 3}})
		b.Undo(t, p[1], "wrong parcel")
		b.Sync(t)
		a.Sync(t)
		wantParcel(t, "desk A, parcel 1 after B's undo", a.Redeem(t, p[0], "li"),
			app.OrderParcel{Number: "4711", Customer: "Müller", Parcel: 1, Parcels: 3, Waiting: []int{2, 3}})
		a.Sync(t)
		b.Sync(t)
		wantParcel(t, "desk B, parcel 2 again", b.Redeem(t, p[1], "wang"),
			app.OrderParcel{Number: "4711", Customer: "Müller", Parcel: 2, Parcels: 3, Waiting: []int{3}})
	})
}

// TestOrderParcelAtAnotherSitesDesk: a desk of site North scans a label
// of an order imported at main (the parcel went to the wrong dock). It
// holds that label alone, not the order's others: it names the order and
// the parcel as the order's desks do, or no parcel at all, never "parcel 1
// of 1", even when it imported an order of that number itself.
func TestOrderParcelAtAnotherSitesDesk(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 0)
		a := h.Desk(t, "Desk A", "A", h.Station(t, "Desk A", "A")) // site main
		n, _ := h.SiteDesk(t, "North", "Desk N", "N")
		p := importOrders(t, a, "order,customer,parcels\n4711,Müller,3\n")["4711"]
		a.Sync(t)
		n.Sync(t)
		// North's own file names order 4711 too (the same order sent to
		// both docks): desk N, which knows nothing of main's, issues its
		// own three labels. Main's label it comes to hold is no parcel of
		// North's order.
		own := importOrders(t, n, "order,customer,parcels\n4711,Müller,3\n")["4711"]
		if len(own) != 3 {
			t.Fatalf("desk N issued %d labels for its own order 4711, want 3", len(own))
		}
		n.Sync(t)
		v := n.Redeem(t, p[1], "zhao")
		if v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk N (North) scans main's parcel 2: %s %s, want redeemed", v.Outcome, v.Reason)
		}
		check := func(where string, v app.Verdict) {
			t.Helper()
			if v.Order != nil && (v.Order.Number != "4711" || v.Order.Customer != "Müller" || v.Order.Parcel != 2 || v.Order.Parcels != 3) {
				t.Fatalf("%s names %q, want %q or no parcel", where, v.Order.Line(), "Order 4711 · Müller · parcel 2 of 3")
			}
		}
		check("desk N's scan", v)
		n.Sync(t)
		n.Sync(t)
		again, err := n.Svc.Check(context.Background(), p[1])
		if err != nil {
			t.Fatal(err)
		}
		check("desk N's check after its sync", again)
		// Desk N stays silent past the feed's compaction and starts over
		// from the server's snapshot, which brings the label it holds.
		h.Now = h.Now.Add(2 * time.Hour)
		importOrders(t, a, "order,customer,parcels\n4712,Kim,1\n")
		a.Sync(t)
		a.Sync(t)
		if h.Compact(t, h.Now.Add(-time.Hour).Unix()) == 0 {
			t.Fatal("the compaction dropped nothing: desk N would not start over")
		}
		n.Sync(t)
		n.Sync(t)
		again, err = n.Svc.Check(context.Background(), p[1])
		if err != nil {
			t.Fatal(err)
		}
		check("desk N's check after it started over", again)
		mine, err := n.Svc.Check(context.Background(), own[2])
		if err != nil {
			t.Fatal(err)
		}
		wantParcel(t, "desk N, its own parcel 3", mine,
			app.OrderParcel{Number: "4711", Customer: "Müller", Parcel: 3, Parcels: 3, Waiting: []int{1, 2}})
		a.Sync(t)
		wantParcel(t, "desk A, parcel 1", a.Redeem(t, p[0], "li"),
			app.OrderParcel{Number: "4711", Customer: "Müller", Parcel: 1, Parcels: 3, Waiting: []int{3}})
	})
}

// TestOrderReimportAfterDeskRestore: desk A imports order 4711 and syncs,
// its backup is taken, it imports 4712 and syncs; then its database is
// restored from the backup (it knows 4711 only). Importing the day's file
// again issues nothing before the desk's first sync (it cannot know what
// it issued after the backup), and after it names both orders as issued
// before: no parcel gets a second label.
func TestOrderReimportAfterDeskRestore(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h := centraltest.New(t, dbPath, 0)
		token := h.Station(t, "Desk A", "A")
		a := h.Desk(t, "Desk A", "A", token)
		importOrders(t, a, "order,customer,parcels\n4711,Müller,2\n")
		a.Sync(t)
		backup := filepath.Join(t.TempDir(), "desk-a.backup")
		if err := a.DB.Backup(ctx, backup); err != nil {
			t.Fatal(err)
		}
		h.Now = h.Now.Add(time.Minute)
		importOrders(t, a, "order,customer,parcels\n4712,张伟,3\n")
		a.Sync(t)
		h.Now = h.Now.Add(time.Minute)
		a = restoreDesk(t, h, a, backup, token)

		day := "order,customer,parcels\n4711,Müller,2\n4712,张伟,3\n"
		f, err := app.ParseOrderFile([]byte(day), app.EncodingAuto, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := a.Svc.ImportOrders(ctx, f, app.OrderImport{Operator: "li"})
		if err == nil || len(res.Issued) != 0 {
			t.Fatalf("import at the restored desk before its sync: issued %+v, error %v; want it refused", res.Issued, err)
		}
		var ae *app.Error
		if !errors.As(err, &ae) {
			t.Fatalf("refusal %v is no app.Error", err)
		}
		t.Logf("before the sync: %s", app.ErrorMessage(err))
		if n := a.Count(t, `SELECT count(*) FROM codes WHERE ref = '4712'`); n != 0 {
			t.Fatalf("the restored desk holds %d labels of 4712 before its sync, want none", n)
		}

		a.Sync(t)
		res, err = a.Svc.ImportOrders(ctx, f, app.OrderImport{Operator: "li"})
		if err != nil || len(res.Issued) != 0 || len(res.Already) != 2 {
			t.Fatalf("import after the sync: issued %+v, issued before %+v, error %v; want both orders named as issued before", res.Issued, res.Already, err)
		}
		for ref, want := range map[string]int{"4711": 2, "4712": 3} {
			if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM codes WHERE ref = ?`, ref); n != want {
				t.Errorf("the server holds %d labels of order %s, want %d", n, ref, want)
			}
			if n := a.Count(t, `SELECT count(*) FROM codes WHERE ref = ?`, ref); n != want {
				t.Errorf("desk A holds %d labels of order %s, want %d", n, ref, want)
			}
		}
	})
}

// TestOrderParcelReplacedAtADeskBehindTheFeed: desk A imports order 4711
// and syncs; desk B, whose feed has not brought the order's labels yet,
// scans parcel 1 online. The server redeems it, and B keeps its copy of
// the label as the server answered: without the order number, which only
// the feed carries. The clerk undoes the scan (wrong parcel) and, the
// label being torn, replaces it: the new label takes B's copy's ref, none.
// The server gives the replacement its original's ref when the replace
// event stores it, so after their syncs both desks name the new label as
// parcel 1 of 2, and a handover of it reaches the WMS under order 4711.
func TestOrderParcelReplacedAtADeskBehindTheFeed(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, _ := centraltest.TwoDesks(t, dbPath, 0)
		p := importOrders(t, a, "order,customer,parcels\n4711,Müller,2\n")["4711"]
		a.Sync(t)
		if v := b.Redeem(t, p[0], "wang"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk B scans parcel 1 online: %s %s, want redeemed", v.Outcome, v.Reason)
		}
		if n := b.Count(t, `SELECT count(*) FROM codes WHERE code = ? AND ref = ''`, p[0]); n != 1 {
			t.Fatalf("desk B holds %d copies of parcel 1 without its order number, want 1 (the story needs the server's answer alone)", n)
		}
		b.Undo(t, p[0], "wrong parcel")
		newLabel := b.Replace(t, p[0], "wang")
		b.Sync(t)
		b.Sync(t)
		a.Sync(t)
		want := app.OrderParcel{Number: "4711", Customer: "Müller", Parcel: 1, Parcels: 2, Waiting: []int{2}}
		for _, d := range []struct {
			name string
			desk *centraltest.Desk
		}{{"desk A (the order's desk)", a}, {"desk B (the replacing desk)", b}} {
			v, err := d.desk.Svc.Check(context.Background(), newLabel)
			if err != nil {
				t.Fatal(err)
			}
			wantParcel(t, d.name+", parcel 1's replacement", v, want)
		}
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM codes WHERE code = ? AND ref = '4711'`, newLabel); n != 1 {
			t.Fatalf("the server holds %d replacements %s under ref 4711, want 1", n, newLabel)
		}
		wantParcel(t, "desk A scans parcel 1's replacement", a.Redeem(t, newLabel, "li"),
			app.OrderParcel{Number: "4711", Customer: "Müller", Parcel: 1, Parcels: 2, Waiting: []int{2}})

		// Desk A, whose copy has the ref, replaces parcel 2: its batch's
		// upload still gives the label its batch number at the server.
		second := a.Replace(t, p[1], "li")
		a.Sync(t)
		a.Sync(t)
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM codes WHERE code = ? AND ref = '4711' AND batch <> 0`, second); n != 1 {
			t.Fatalf("the server holds %d replacements %s under ref 4711 with their batch number, want 1", n, second)
		}
	})
}
