package ui

import (
	"context"
	"sort"
	"testing"

	"fyne.io/fyne/v2"

	"qrdesk/app"
)

// issueOrder imports one order at h's desk and returns its labels in
// serial order (parcel 1 first).
func (h *harness) issueOrder(t *testing.T, file string) []string {
	t.Helper()
	f, err := app.ParseOrderFile([]byte(file), app.EncodingAuto, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := h.svc.ImportOrders(context.Background(), f, app.OrderImport{Operator: "li"})
	if err != nil || len(res.Issued) != 1 {
		t.Fatalf("import: %+v %v", res, err)
	}
	recs, err := h.svc.Search(context.Background(), app.SearchQuery{BatchID: res.Issued[0].Batch, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].Serial < recs[j].Serial })
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.Code
	}
	return out
}

// TestScanNamesTheOrdersParcel: a scan of a label of a pickup order says,
// on the green REDEEMED, which parcel of which order to hand over and
// which parcels still wait; the last parcel says the others went; a
// second scan of a used one names its parcel under ALREADY USED. The
// same in Chinese.
func TestScanNamesTheOrdersParcel(t *testing.T) {
	h := newHarness(t)
	p := h.issueOrder(t, "order,customer,parcels\n4711,Müller,3\n")
	want := func(what, detail, note string) {
		t.Helper()
		var d, n string
		fyne.DoAndWait(func() { d, n = h.ui.scan.detail.Text, h.ui.scan.note.Text })
		if d != detail || n != note {
			t.Fatalf("%s: the panel says %q / %q, want %q / %q", what, d, n, detail, note)
		}
	}
	h.scan(t, p[1], fyne.KeyReturn, "REDEEMED")
	want("parcel 2", "Order 4711 · Müller · parcel 2 of 3", "2 parcels of this order still waiting: parcels 1, 3")
	h.scan(t, p[0], fyne.KeyReturn, "REDEEMED")
	want("parcel 1", "Order 4711 · Müller · parcel 1 of 3", "1 parcel of this order still waiting: parcel 3")
	h.scan(t, p[2], fyne.KeyReturn, "REDEEMED")
	want("parcel 3", "Order 4711 · Müller · parcel 3 of 3", "The order's other 2 parcels are handed over")
	h.clock.Advance(5e9)
	h.scan(t, p[1], fyne.KeyReturn, "ALREADY USED")
	if n := h.ui.scan.note.Text; n != "Order 4711 · Müller · parcel 2 of 3" {
		t.Fatalf("parcel 2 again: the note says %q, want the order's line", n)
	}

	override = chineseTexts(t)
	defer func() { override = nil }()
	q := h.issueOrder(t, "订单号,客户,件数\n4712,张伟,2\n")
	h.scan(t, q[0], fyne.KeyReturn, T("REDEEMED"))
	want("in Chinese", "订单 4712 · 张伟 · 第 1 件，共 2 件", "本订单还有 1 件待取：第 2 件")
}
