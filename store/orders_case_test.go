package store

import (
	"context"
	"testing"

	"qrdesk/app"
	"qrdesk/printing"
)

// TestOrderHeldAsARefInAnotherCase (hostile4): an order imported here is
// found again in any case ("so-7" is SO-7), but one held only as labels
// carrying its number as their ref (issued at another desk, or with
// 'qrdesk issue --ref so-7') was found in its exact case only: the file's
// "SO-7" issued the order a second time.
func TestOrderHeldAsARefInAnotherCase(t *testing.T) {
	ctx := context.Background()
	svc, _, _ := mustOpen(t)
	if _, _, err := svc.Issue(ctx, app.IssueRequest{Count: 2, Ref: "so-7"}); err != nil {
		t.Fatal(err)
	}
	f, err := app.ParseOrderFile([]byte("order,customer,parcels\nSO-7,Schmidt,2\nSO-8,Meier,1\n"), app.EncodingAuto, printing.CheckPrintable)
	if err != nil {
		t.Fatal(err)
	}
	res, err := svc.ImportOrders(ctx, f, app.OrderImport{Operator: "li"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Issued) != 1 || res.Issued[0].Number != "SO-8" || len(res.Already) != 1 || res.Already[0].Parcels != 2 {
		t.Fatalf("issued %+v, issued before %+v", res.Issued, res.Already)
	}
}

// TestOrderNumberAsAClerkReadsIt: an order number is the same order in
// any case ("So-7" is SO-7, "ä1" is Ä1, "straße" is STRASSE), in full or
// half width ("Ｂ２" is B2) and composed or not ("a" + U+0308 is "ä"):
// the second import names it as issued before, whether the two files
// spell it one way or the other, and one file holding it twice refuses the
// second line. SQLite's NOCASE folds only A–Z: "ä1" after "Ä1" was
// issued a second time.
func TestOrderNumberAsAClerkReadsIt(t *testing.T) {
	for _, tc := range []struct{ first, second string }{
		{"So-7", "SO-7"},
		{"Ä1", "ä1"},
		{"ä2", "Ä2"},
		{"Ｂ２", "b2"},
		{"C3", "ｃ３"},
		{"STRASSE-4", "straße-4"},
		{"a\u03085", "Ä5"},
	} {
		t.Run(tc.first+"_then_"+tc.second, func(t *testing.T) {
			svc, _, _ := mustOpen(t)
			first := importOrders(t, svc, "order,customer,parcels\n"+tc.first+",Weber,2\n")
			if len(first.Issued) != 1 {
				t.Fatalf("the first import issued %+v", first.Issued)
			}
			second := importOrders(t, svc, "order,customer,parcels\n"+tc.second+",Weber,2\n")
			if len(second.Issued) != 0 || len(second.Already) != 1 || second.Already[0].Batch != first.Issued[0].Batch {
				t.Fatalf("the second import (%q after %q) issued %+v, named as issued before %+v", tc.second, tc.first, second.Issued, second.Already)
			}
			f, err := app.ParseOrderFile([]byte("order,customer,parcels\n"+tc.first+",Weber,2\n"+tc.second+",Weber,2\n"), app.EncodingAuto, printing.CheckPrintable)
			if err != nil {
				t.Fatal(err)
			}
			if len(f.Orders) != 1 || len(f.Refused) != 1 || f.Refused[0].Reason != app.ReasonDuplicateOrder || f.Refused[0].Line != 3 {
				t.Fatalf("one file with %q and %q: orders %+v, refused %+v", tc.first, tc.second, f.Orders, f.Refused)
			}
		})
	}
}

func importOrders(t *testing.T, svc *app.Service, csv string) app.OrderImportResult {
	t.Helper()
	f, err := app.ParseOrderFile([]byte(csv), app.EncodingAuto, printing.CheckPrintable)
	if err != nil {
		t.Fatal(err)
	}
	res, err := svc.ImportOrders(context.Background(), f, app.OrderImport{Operator: "li"})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestOrderKeysFilledAtOpen: an order an older release imported has no
// key (number_key empty); the desk fills it when it opens the database,
// so "Strasse-9" after its "STRASSE-9" is still named as issued before.
// Of two spellings an older release issued (STRASSE-9, then straße-9),
// the first keeps the key and opening does not fail on the second.
func TestOrderKeysFilledAtOpen(t *testing.T) {
	ctx := context.Background()
	svc, db, _ := mustOpen(t)
	importOrders(t, svc, "order,customer,parcels\nSTRASSE-9,Weber,1\n")
	for _, q := range []string{
		`UPDATE orders SET number_key = ''`,
		`INSERT INTO orders (number, customer, parcels, batch_id, imported_at) SELECT 'straße-9', 'Weber', 1, batch_id, imported_at + 60 FROM orders`,
	} {
		if _, err := db.SQL().ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	db2, err := Open(ctx, db.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	var key string
	if err := db2.SQL().QueryRowContext(ctx, `SELECT number_key FROM orders WHERE number = 'STRASSE-9'`).Scan(&key); err != nil || key != "strasse-9" {
		t.Fatalf("after open the order's key is %q (%v), want strasse-9", key, err)
	}
	res := importOrders(t, svc, "order,customer,parcels\nStrasse-9,Weber,1\n")
	if len(res.Issued) != 0 || len(res.Already) != 1 || res.Already[0].Number != "STRASSE-9" {
		t.Fatalf("issued %+v, issued before %+v; want STRASSE-9 named", res.Issued, res.Already)
	}
}
