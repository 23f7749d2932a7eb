package multidesk_test

import (
	"context"
	"testing"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// TestOrderIssuedAtAnotherDeskNamesItsCustomer: desk A imports the day's
// file; desk B, synced, is given the same file. It names each order as
// issued before, with the customer the feed's mark carries: it said
// "issued before: order 4711, -, batch 1" when the number was spelled as
// desk A spelled it (another spelling named the customer).
func TestOrderIssuedAtAnotherDeskNamesItsCustomer(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		_, a, b, _ := centraltest.TwoDesks(t, dbPath, 0)
		file := "order,customer,parcels\n4711,Müller,2\nSo-7,Kim,1\n"
		importOrders(t, a, file)
		a.Sync(t)
		b.Sync(t)
		f, err := app.ParseOrderFile([]byte(file), app.EncodingAuto, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := b.Svc.ImportOrders(context.Background(), f, app.OrderImport{Operator: "wang"})
		if err != nil || len(res.Issued) != 0 || len(res.Already) != 2 {
			t.Fatalf("desk B: issued %+v, named as issued before %+v, %v; want both named", res.Issued, res.Already, err)
		}
		want := map[string]string{"4711": "Müller", "So-7": "Kim"}
		for _, o := range res.Already {
			if o.Customer != want[o.Number] {
				t.Errorf("desk B names order %s with customer %q, want %q", o.Number, o.Customer, want[o.Number])
			}
		}
	})
}
