package multidesk_test

import (
	"context"
	"reflect"
	"sort"
	"testing"
	"time"

	"net/http"
	"net/http/httptest"
	"strings"

	"qrdesk/app"
	"qrdesk/deskclient"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// importOrders imports an order file's text at d and returns each order's
// labels in serial order (parcel 1 first).
func importOrders(t *testing.T, d *centraltest.Desk, file string) map[string][]string {
	t.Helper()
	f, err := app.ParseOrderFile([]byte(file), app.EncodingAuto, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := d.Svc.ImportOrders(context.Background(), f, app.OrderImport{Operator: "li"})
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	out := map[string][]string{}
	for _, o := range res.Issued {
		recs, err := d.Svc.Search(context.Background(), app.SearchQuery{BatchID: o.Batch, Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		sort.Slice(recs, func(i, j int) bool { return recs[i].Serial < recs[j].Serial })
		for _, r := range recs {
			out[o.Number] = append(out[o.Number], r.Code)
		}
	}
	return out
}

// wantParcel fails unless v names the order's parcel as want.
func wantParcel(t *testing.T, where string, v app.Verdict, want app.OrderParcel) {
	t.Helper()
	if v.Order == nil || !reflect.DeepEqual(*v.Order, want) {
		t.Fatalf("%s: the verdict %s names the order %+v, want %+v (%q)", where, v.Outcome, v.Order, want, want.Line())
	}
}

// TestOrderParcelNamedAtEveryDesk: the warehouse's orders are imported at
// desk A; a scan of a parcel's label at desk B (online, its feed brought
// the labels) says "Order 4711 · Müller · parcel 2 of 3" and which
// parcels still wait, as a scan at A does. A replacement of a parcel's
// label is that parcel; a label with a ref typed at issue is no order's.
// A desk that joins after the feed was compacted (from the snapshot)
// names the parcel too.
func TestOrderParcelNamedAtEveryDesk(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, _ := centraltest.TwoDesks(t, dbPath, 0)
		labels := importOrders(t, a, "order,customer,parcels\n4711,Müller,3\n4712,,1\n")
		typed, _ := issueWithRef(t, a, 1, "4713") // a ref, not an order
		a.Sync(t)
		b.Sync(t)

		p := labels["4711"]
		wantParcel(t, "desk B, parcel 2", b.Redeem(t, p[1], "wang"),
			app.OrderParcel{Number: "4711", Customer: "Müller", Parcel: 2, Parcels: 3, Waiting: []int{1, 3}})
		b.Sync(t)
		a.Sync(t)
		wantParcel(t, "desk A, parcel 1", a.Redeem(t, p[0], "li"),
			app.OrderParcel{Number: "4711", Customer: "Müller", Parcel: 1, Parcels: 3, Waiting: []int{3}})
		wantParcel(t, "desk B, 4712", b.Redeem(t, labels["4712"][0], "wang"),
			app.OrderParcel{Number: "4712", Parcel: 1, Parcels: 1, Waiting: []int{}})
		if v := b.Redeem(t, typed[0], "wang"); v.Order != nil {
			t.Fatalf("desk B names the order %+v for a label issued with ref 4713 (no order)", v.Order)
		}

		// Parcel 3's label is damaged: A replaces it, B scans the new one.
		newLabel := a.Replace(t, p[2], "li")
		a.Sync(t)
		a.Sync(t)
		b.Sync(t)
		wantParcel(t, "desk B, parcel 3's replacement", b.Redeem(t, newLabel, "wang"),
			app.OrderParcel{Number: "4711", Customer: "Müller", Parcel: 3, Parcels: 3, Waiting: []int{}})

		// A desk that starts from the server's snapshot.
		b.Sync(t)
		a.Sync(t)
		h.Compact(t, h.Now.Add(-7*24*time.Hour).Unix())
		late := h.Desk(t, "Desk L", "L", h.Station(t, "Desk L", "L"))
		late.Sync(t)
		v, err := late.Svc.Check(context.Background(), p[1])
		if err != nil {
			t.Fatal(err)
		}
		wantParcel(t, "a desk that joined after compaction", v,
			app.OrderParcel{Number: "4711", Customer: "Müller", Parcel: 2, Parcels: 3, Waiting: []int{}})
	})
}

// TestOrderMarkOnlyToANewerServer: a desk sends its orders' labels marked
// only to a server that reads the mark (protocol 6): a protocol-5 server
// takes the batch without it (its desks show the order number as the
// ref); once it is upgraded, the next order's labels go marked.
func TestOrderMarkOnlyToANewerServer(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 0)
		old := &olderServer{next: h.API.Handler(), on: true, protocol: 5, path: "/v1/batches", fields: []string{"order"}}
		srv := httptest.NewServer(old)
		t.Cleanup(srv.Close)
		a := h.Desk(t, "Desk A", "A", "")
		a.Svc.Remote = deskclient.New(srv.URL, h.Station(t, "Desk A", "A"))

		before := importOrders(t, a, "order,customer,parcels\n4711,Müller,2\n")
		st, err := a.Svc.Sync(context.Background())
		if err != nil || old.refused != 0 {
			t.Fatalf("sync with a protocol-5 server: %+v %v (%d uploads refused), want the batch taken without the mark", st, err, old.refused)
		}
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM codes WHERE code = ? AND ref = '4711' AND order_customer IS NULL`, before["4711"][0]); n != 1 {
			t.Fatalf("the old server holds %d labels %s of ref 4711 without a mark, want 1", n, before["4711"][0])
		}

		old.on = false // the server is upgraded
		after := importOrders(t, a, "order,customer,parcels\n4712,张伟,2\n")
		a.Sync(t)
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM codes WHERE code = ? AND ref = '4712' AND order_customer = '张伟'`, after["4712"][1]); n != 1 {
			t.Fatalf("the upgraded server holds %d labels %s marked with customer 张伟, want 1", n, after["4712"][1])
		}
	})
}

// TestOrderMarkCheckedAtTheServer: an upload whose order mark a desk
// would not have made (a customer name with a control character or over
// 80 characters, a mark without the order number as ref) is refused with
// what was wrong.
func TestOrderMarkCheckedAtTheServer(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 2)
		tok := h.Station(t, "Desk A", "A")
		for _, tc := range []struct{ name, ref, customer, want string }{
			{"ControlCharacter", "4711", "Mül\aler", "the order's customer name contains a control character (U+0007)"},
			{"TooLong", "4711", strings.Repeat("M", 81), "the order's customer name is 81 characters long: at most 80"},
			{"NoRef", "", "Müller", "a label of an order carries the order number as its ref"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				var res struct{ Error string }
				c := map[string]any{"code": h.Codes[0], "expire_at": 0, "created_at": h.Now.Unix() - 60, "ref": tc.ref, "batch": 1, "order": map[string]string{"customer": tc.customer}}
				status := h.Call(t, "POST", "/v1/batches", tok, h.Ring, map[string]any{"codes": []any{c}}, &res)
				if status != http.StatusBadRequest || !strings.Contains(res.Error, tc.want) || !strings.Contains(res.Error, "codes[0] "+h.Codes[0]) {
					t.Fatalf("got %d %q, want 400 naming codes[0] %s and %q", status, res.Error, h.Codes[0], tc.want)
				}
			})
		}
	})
}
