package store

import (
	"context"
	"encoding/json"
	"testing"

	"qrdesk/app"
	"qrdesk/protocol"
)

// TestOwnScanRedeemedByTheServer (found by the property test): the server
// redeemed a scan whose answer never arrived, and the change feed brought
// that redemption here before the desk decided alone: the scan is
// "redeemed" (it was this scan the server took), not "already used".
func TestOwnScanRedeemedByTheServer(t *testing.T) {
	ctx := context.Background()
	svc, db, clock := mustOpen(t)
	_, codes := mustIssue(t, svc, app.IssueRequest{Count: 1})
	data, _ := json.Marshal(map[string]any{"at": clock.Now().Unix(), "operator": "li", "event_id": "scan-trace-0001"})
	if err := db.ApplyChanges(ctx, []protocol.Change{{Seq: 1, Kind: "redeem", Code: codes[0].String(), Station: "Station A", Data: string(data)}}, 1); err != nil {
		t.Fatal(err)
	}
	a := app.Attempt{Actor: app.Actor{Station: "Station A", Operator: "li"}, TraceID: "scan-trace-0001", Code: codes[0].String(), At: clock.Now().Unix()}
	v, err := db.Redeem(ctx, codes[0], a)
	if err != nil || v.Outcome != app.OutcomeRedeemed {
		t.Fatalf("the scan the server redeemed: %+v %v", v, err)
	}
	a.TraceID = "another-scan-0002"
	if v, _ := db.Redeem(ctx, codes[0], a); v.Outcome != app.OutcomeAlreadyUsed {
		t.Fatalf("another scan of it: %+v", v)
	}
	if n := count(t, db, `SELECT count(*) FROM outbox`); n != 0 {
		t.Fatalf("%d outbox events: the server has it already", n)
	}
}
