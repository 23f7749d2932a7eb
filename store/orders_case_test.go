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
