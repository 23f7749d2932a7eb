package store

import (
	"context"
	"strings"
	"testing"
	"time"

	"qrdesk/app"
)

func TestReplaceLabel(t *testing.T) {
	ctx := context.Background()
	svc, db, clock := mustOpen(t)
	b, codes := mustIssue(t, svc, app.IssueRequest{Count: 3, Type: "parcel", Ref: "PO-77", Expires: "7d"})
	torn, used, expiring := codes[0].String(), codes[1].String(), codes[2].String()
	if _, err := svc.Redeem(ctx, used, "li"); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Hour)

	r, err := svc.Replace(ctx, app.ReplaceRequest{Code: torn, Reason: "label torn", Operator: "li"})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("NewCodeSameRefTypeExpiry", func(t *testing.T) {
		if r.New.Ref != "PO-77" || r.New.Type != "parcel" || r.New.Status != app.StatusUnused || r.Batch == b.ID || r.New.Code == torn {
			t.Fatalf("replacement %+v", r)
		}
		if r.New.ExpireAt != b.ExpireAt || r.New.Serial != b.LastSerial+1 {
			t.Fatalf("new code expires %d serial %d, want the old expiry %d and the next serial %d", r.New.ExpireAt, r.New.Serial, b.ExpireAt, b.LastSerial+1)
		}
		if v, _ := svc.Redeem(ctx, r.New.Code, "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("the new label does not redeem: %+v", v)
		}
	})
	t.Run("OldDisabledNamingNew", func(t *testing.T) {
		v, _ := svc.Redeem(ctx, torn, "li")
		if v.Outcome != app.OutcomeDisabled || v.DisabledReason != "replaced by "+r.New.Code {
			t.Fatalf("old label: %+v, want disabled with the reason 'replaced by NEW'", v)
		}
		if n := count(t, db, `SELECT count(*) FROM outbox WHERE kind = 'replace' AND code = ? AND new_code = ? AND reason = 'label torn' AND new_created_at > 0`, torn, r.New.Code); n != 1 {
			t.Fatal("the replacement naming both labels is not in the outbox")
		}
		if n := count(t, db, `SELECT count(*) FROM codes WHERE code IN (?, ?) AND entitlement = ?`, torn, r.New.Code, torn); n != 2 {
			t.Fatal("the old and the new label are not one entitlement")
		}
	})
	t.Run("HistoriesNameEachOther", func(t *testing.T) {
		for _, tc := range []struct{ code, names string }{{torn, r.New.Code}, {r.New.Code, torn}} {
			recs, _ := svc.Search(ctx, app.SearchQuery{Text: tc.code})
			events, err := db.CodeHistory(ctx, recs[0].ID)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, e := range events {
				found = found || (strings.Contains(e.Detail, tc.names) && strings.Contains(e.Detail, "label torn"))
			}
			if !found {
				t.Errorf("history of %s %+v does not name %s with the reason", tc.code, events, tc.names)
			}
		}
	})
	t.Run("ErrReplacedAgainOrEnabled", func(t *testing.T) {
		// The replacement was used (above): the old label may become valid
		// neither by a second replacement nor by an enable.
		_, err := svc.Replace(ctx, app.ReplaceRequest{Code: torn, Reason: "label torn", Operator: "li"})
		if app.KindOf(err) != app.KindConflict || !strings.Contains(app.ErrorMessage(err), r.New.Code) {
			t.Fatalf("replacing a replaced label again: %v, want refused naming %s", err, r.New.Code)
		}
		_, err = svc.SetDisabled(ctx, torn, false, "", "li")
		if app.KindOf(err) != app.KindConflict || !strings.Contains(app.ErrorMessage(err), r.New.Code) {
			t.Fatalf("enabling a replaced label: %v, want refused naming %s", err, r.New.Code)
		}
	})
	t.Run("ErrUsed", func(t *testing.T) {
		_, err := svc.Replace(ctx, app.ReplaceRequest{Code: used, Reason: "label torn", Operator: "li"})
		if app.KindOf(err) != app.KindConflict || !strings.Contains(app.ErrorMessage(err), "already used") {
			t.Fatalf("replacing a used label: %v", err)
		}
	})
	t.Run("ErrExpired", func(t *testing.T) {
		clock.Advance(8 * 24 * time.Hour)
		_, err := svc.Replace(ctx, app.ReplaceRequest{Code: expiring, Reason: "label torn", Operator: "li"})
		if app.KindOf(err) != app.KindConflict || !strings.Contains(app.ErrorMessage(err), "expired") {
			t.Fatalf("replacing an expired label: %v", err)
		}
	})
	t.Run("AllOrNothing", func(t *testing.T) {
		before := count(t, db, `SELECT count(*) FROM codes`)
		if _, err := svc.Replace(ctx, app.ReplaceRequest{Code: used, Reason: "x", Operator: "li"}); app.KindOf(err) != app.KindInvalid {
			t.Fatalf("short reason: %v", err)
		}
		if _, err := svc.Replace(ctx, app.ReplaceRequest{Code: used, Reason: "label torn", Operator: "li"}); err == nil {
			t.Fatal("used label replaced")
		}
		if after := count(t, db, `SELECT count(*) FROM codes`); after != before {
			t.Fatalf("%d codes after refused replacements, want %d", after, before)
		}
	})
}
