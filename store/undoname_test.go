package store

import (
	"context"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/protocol"
)

// TestUndoOfAnOnlineRedemptionUnderTheServersName: a desk enrolled as "d1"
// (qrdesk-server station add d1) whose own station name is "Station A"
// redeems online; the server's answer names the desk "d1", and the desk
// keeps that name on the redemption. Its supervisor's undo, a minute
// later at that very desk, was refused: "label … was redeemed at d1: only
// that desk can undo it". The redemption is this desk's (its own scan,
// redemptions.own), whatever name it carries.
func TestUndoOfAnOnlineRedemptionUnderTheServersName(t *testing.T) {
	ctx := context.Background()
	svc, db, clock := mustOpen(t)
	_, codes := mustIssue(t, svc, app.IssueRequest{Count: 2})
	for i, station := range []string{"d1", "Desk 9"} {
		a := app.Attempt{Actor: app.Actor{Station: "Station A", Operator: "li"}, TraceID: "scan-000" + string(rune('1'+i)),
			Code: codes[i].String(), At: clock.Now().Unix()}
		r := protocol.Result{Outcome: protocol.OutcomeRedeemed, EventID: a.TraceID, UsedAt: a.At, UsedStation: station, UsedOperator: "li"}
		if station == "Desk 9" {
			// Another desk's redemption, which the feed brings: not this desk's to undo.
			r.Outcome = protocol.OutcomeAlreadyUsed
		}
		if _, err := db.MirrorRemote(ctx, codes[i], a, r); err != nil {
			t.Fatal(err)
		}
	}
	clock.Advance(time.Minute)
	u, err := svc.UndoRedemption(ctx, app.UndoRequest{Code: codes[0].String(), Reason: "scanned the wrong parcel", Operator: "boss"})
	if err != nil || u.Status != app.StatusUnused {
		t.Fatalf("undo of this desk's own online redemption: %+v %v, want it unused", u, err)
	}
	if _, err := svc.UndoRedemption(ctx, app.UndoRequest{Code: codes[1].String(), Reason: "scanned the wrong parcel", Operator: "boss"}); err == nil {
		t.Fatal("undo of another desk's redemption was taken, want refused")
	}
}

// TestAllDesksNamesThisDeskOnce: a desk enrolled as "d1" whose station
// name is "Station A" issues labels (its batches carry "Station A") and
// redeems online (the server's answer names it "d1"). The close of the
// day's "all desks" lines listed it twice: "Station A issued 2, redeemed
// 0" and "d1 issued 0, redeemed 1". It is listed once, under the server's
// name for it (the dashboard's).
func TestAllDesksNamesThisDeskOnce(t *testing.T) {
	ctx := context.Background()
	svc, db, clock := mustOpen(t)
	_, codes := mustIssue(t, svc, app.IssueRequest{Count: 2})
	if _, err := db.SQL().Exec(`INSERT INTO sync_state (key, value) VALUES ('last_ok', ?), ('server_station', 'd1')`, clock.Now().Unix()); err != nil {
		t.Fatal(err)
	}
	a := app.Attempt{Actor: app.Actor{Station: "Station A", Operator: "li"}, TraceID: "scan-0001", Code: codes[0].String(), At: clock.Now().Unix()}
	if _, err := db.MirrorRemote(ctx, codes[0], a, protocol.Result{Outcome: protocol.OutcomeRedeemed, EventID: a.TraceID, UsedAt: a.At, UsedStation: "d1", UsedOperator: "li"}); err != nil {
		t.Fatal(err)
	}
	all, err := db.AllDesks(ctx, clock.Now().Add(-time.Hour).Unix(), clock.Now().Add(time.Hour).Unix())
	if err != nil || all == nil {
		t.Fatal(all, err)
	}
	if len(all.Desks) != 1 || all.Desks[0].Issued != 2 || all.Desks[0].Redeemed != 1 {
		t.Fatalf("all desks %+v, want this one desk once: issued 2, redeemed 1", all.Desks)
	}
}
