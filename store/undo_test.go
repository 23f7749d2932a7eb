package store

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"qrdesk/app"
)

func TestUndoRedemption(t *testing.T) {
	ctx := context.Background()
	svc, db, clock := mustOpen(t)
	_, codes := mustIssue(t, svc, app.IssueRequest{Count: 4})
	label, late, fresh := codes[0].String(), codes[1].String(), codes[2].String()
	for _, c := range []string{label, late} {
		if v, err := svc.Redeem(ctx, c, "li"); err != nil || v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("redeem %s: %+v %v", c, v, err)
		}
	}
	undo := func(code, reason string) (app.Undo, error) {
		return svc.UndoRedemption(ctx, app.UndoRequest{Code: code, Reason: reason, Operator: "boss"})
	}

	t.Run("OK", func(t *testing.T) {
		clock.Advance(4 * time.Minute)
		u, err := undo(label, "scanned the wrong parcel")
		if err != nil {
			t.Fatal(err)
		}
		if u.Status != app.StatusUnused || u.RedeemedBy != "li" || u.Undoes == "" || u.Server != "" {
			t.Fatalf("got %+v, want unused, redeemed by li, naming the redemption, no server", u)
		}
		if v, _ := svc.Check(ctx, label); v.Outcome != app.OutcomeValid || v.Record.UsedStation != "" {
			t.Fatalf("after undo the label checks %+v, want valid with no user", v)
		}
		// Nothing deleted: the redemption row stays beside the undo row.
		if n := count(t, db, `SELECT count(*) FROM redemptions r JOIN codes c ON c.id = r.code_id WHERE c.code = ? AND r.undone_at > 0`, label); n != 1 {
			t.Fatalf("%d undone redemption rows, want 1", n)
		}
		if n := count(t, db, `SELECT count(*) FROM undos WHERE undoes = ? AND reason = 'scanned the wrong parcel'`, u.Undoes); n != 1 {
			t.Fatalf("%d undo rows, want 1", n)
		}
		if n := count(t, db, `SELECT count(*) FROM outbox WHERE kind = 'undo' AND undoes = ? AND event_id = ?`, u.Undoes, u.EventID); n != 1 {
			t.Fatalf("%d undo outbox events, want 1", n)
		}
	})
	t.Run("HistoryShowsBoth", func(t *testing.T) {
		recs, err := svc.Search(ctx, app.SearchQuery{Text: label})
		if err != nil || len(recs) != 1 {
			t.Fatalf("search: %v %v", recs, err)
		}
		events, err := db.CodeHistory(ctx, recs[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		var kinds []string
		for _, e := range events {
			kinds = append(kinds, e.Kind)
		}
		if got := strings.Join(kinds, ","); got != "redeemed,undo" {
			t.Fatalf("history %s, want redeemed,undo", got)
		}
		if d := events[1].Detail; !strings.Contains(d, "scanned the wrong parcel") || !strings.Contains(d, "li") || events[1].Operator != "boss" {
			t.Fatalf("undo history line %+v does not give the reason, the redeeming operator and the supervisor", events[1])
		}
	})
	t.Run("RedeemAgain", func(t *testing.T) {
		v, err := svc.Redeem(ctx, label, "wang")
		if err != nil || v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("redeem after undo: %+v %v", v, err)
		}
		if v, _ := svc.Check(ctx, label); v.Outcome != app.OutcomeAlreadyUsed || v.UsedOperator != "wang" {
			t.Fatalf("after the second redemption: %+v, want already used by wang", v)
		}
	})
	t.Run("ErrOutsideWindow", func(t *testing.T) {
		clock.Advance(2 * time.Minute) // 6 minutes after the redemption
		_, err := undo(late, "too late now")
		if app.KindOf(err) != app.KindConflict || !strings.Contains(app.ErrorMessage(err), "too late") || !strings.Contains(app.ErrorMessage(err), "5m") {
			t.Fatalf("undo 6 minutes after: got %v, want too late (window 5m)", err)
		}
	})
	t.Run("WindowIsASetting", func(t *testing.T) {
		if _, err := svc.UpdateSettings(ctx, map[string]string{"undo_window": "10m"}, "boss"); err != nil {
			t.Fatal(err)
		}
		if _, err := undo(late, "scanned twice"); err != nil {
			t.Fatalf("undo within a 10-minute window: %v", err)
		}
		for _, bad := range []string{"0", "30s", "2d", "five"} {
			if _, err := svc.UpdateSettings(ctx, map[string]string{"undo_window": bad}, "boss"); err == nil || !strings.Contains(err.Error(), "undo window") {
				t.Errorf("undo_window %q: got %v, want a clear refusal", bad, err)
			}
		}
	})
	t.Run("ErrNotUsed", func(t *testing.T) {
		_, err := undo(fresh, "not used yet")
		if app.KindOf(err) != app.KindConflict || !strings.Contains(app.ErrorMessage(err), "unused, not used") {
			t.Fatalf("undo of an unused label: got %v", err)
		}
	})
	t.Run("ErrInput", func(t *testing.T) {
		if _, err := undo(label, "x"); app.KindOf(err) != app.KindInvalid {
			t.Errorf("short reason: %v", err)
		}
		if _, err := svc.UndoRedemption(ctx, app.UndoRequest{Code: label, Reason: "mistake"}); app.KindOf(err) != app.KindInvalid {
			t.Errorf("no operator: %v", err)
		}
		if _, err := undo("NOT-A-CODE", "mistake"); app.KindOf(err) != app.KindInvalid {
			t.Errorf("not a code: %v", err)
		}
	})
}

// Two supervisors undoing the same redemption at once: exactly one wins.
func TestUndoRace(t *testing.T) {
	ctx := context.Background()
	svc, db, _ := mustOpen(t)
	_, codes := mustIssue(t, svc, app.IssueRequest{Count: 1})
	if _, err := svc.Redeem(ctx, codes[0].String(), "li"); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	won := 0
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := svc.UndoRedemption(ctx, app.UndoRequest{Code: codes[0].String(), Reason: "double undo", Operator: "boss"}); err == nil {
				mu.Lock()
				won++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if won != 1 || count(t, db, `SELECT count(*) FROM undos`) != 1 {
		t.Fatalf("%d undos succeeded, want exactly 1", won)
	}
}
