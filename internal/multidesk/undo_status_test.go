package multidesk_test

import (
	"context"
	"database/sql"
	"reflect"
	"strings"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/central"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/serverdbtest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
	"qrdesk/serverdb"
)

// Issue 17, item 3: desk A disables X; desk B, offline, redeems X; B's
// supervisor undoes it. The server puts X back to disabled, and so must
// every desk's copy (the undo's feed change carries the status): desk A,
// offline afterwards, refuses X as disabled instead of handing a parcel
// over for it.
func TestUndoLeavesDisabledAtEveryDesk(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 2)
		x := codes[0]
		if _, err := a.Svc.SetDisabled(context.Background(), x, true, "label torn", "li"); err != nil {
			t.Fatal(err)
		}
		a.Sync(t)
		remoteA, remoteB := a.Svc.Remote, b.Svc.Remote
		b.Svc.Remote = nil // offline: B has not heard of the disabling
		h.Now = h.Now.Add(time.Minute)
		if v := b.Redeem(t, x, "wang"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk B offline: %+v", v)
		}
		b.Svc.Remote = remoteB
		b.Sync(t) // the redemption reaches the server: used, flagged
		h.Now = h.Now.Add(time.Minute)
		u := b.Undo(t, x, "wrong parcel")
		if u.Server != "undone" {
			t.Fatalf("undo: %+v, want the server's confirmation", u)
		}
		if n := h.Server(t).CountLabel(x, "disabled"); n != 1 {
			t.Fatal("the server did not put the label back to disabled")
		}
		if u.Status != app.StatusDisabled {
			t.Errorf("desk B's undo answer: the label is %s, want disabled (the server's answer)", u.Status)
		}
		a.Sync(t)
		b.Sync(t)
		for name, d := range map[string]*centraltest.Desk{"A": a, "B": b} {
			if got := d.Status(t, x); got != app.StatusDisabled {
				t.Errorf("desk %s after the undo came through the feed: %s, want disabled as at the server", name, got)
			}
		}
		a.Svc.Remote = nil // A offline now decides alone, on its copy
		h.Now = h.Now.Add(time.Minute)
		if v := a.Redeem(t, x, "li"); v.Outcome != app.OutcomeDisabled {
			t.Fatalf("desk A redeeming the disabled label offline: %+v, want refused as disabled", v)
		}
		a.Svc.Remote = remoteA
		a.Sync(t)
		if n := len(h.Server(t).Events(serverdbtest.Where{Code: x, Kind: "redeem"})); n != 1 {
			t.Fatalf("%d redemptions of the disabled label at the server, want B's one", n)
		}
		// The desks' own day, and another label, are untouched.
		if got := a.Status(t, codes[1]); got != app.StatusUnused {
			t.Fatalf("another label at desk A: %s", got)
		}
	})
}

// A feed from a server without "status" in its changes is applied as
// before: an undo means unused.
func TestUndoChangeWithoutStatus(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		_, a, b, codes := centraltest.TwoDesks(t, dbPath, 1)
		if v := a.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A: %+v", v)
		}
		b.Sync(t)
		st, _ := b.DB.SyncState(context.Background())
		var trace string
		if err := b.DB.SQL().QueryRow(`SELECT trace_id FROM redemptions`).Scan(&trace); err != nil {
			t.Fatal(err)
		}
		old := protocol.Change{Seq: st.Cursor + 1, Kind: protocol.KindUndo, Code: codes[0], Station: "Desk A",
			Data: `{"at":1,"operator":"boss","event_id":"undo-old","undoes":"` + trace + `","reason":"wrong parcel"}`}
		if err := b.DB.ApplyChanges(context.Background(), []protocol.Change{old}, old.Seq); err != nil {
			t.Fatal(err)
		}
		if got := b.Status(t, codes[0]); got != app.StatusUnused {
			t.Fatalf("after an older server's undo: %s, want unused", got)
		}
	})
}

// The server's rules read typed flags and the stored decided time; an
// upgraded server back-fills them from the wording an older server stored,
// so it files its redemptions under the same quarter hours and its undo of
// a redemption made while disabled still leaves the label disabled.
func TestFlagMigrationKeepsDayFigures(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		path := dbPath(t)
		h := centraltest.New(t, func(testing.TB) string { return path }, 3)
		tok := h.Station(t, "Desk 1", "A")
		other := h.Station(t, "Desk 2", "B")
		h.Upload(t, tok)
		h.Now = h.Now.Add(2 * time.Hour) // the labels were issued two hours ago
		now := h.Now.Unix()
		send := func(token string, ev protocol.Event, want protocol.Outcome) {
			t.Helper()
			var out struct{ Results []protocol.Result }
			if st := h.Call(t, "POST", "/v1/events", token, h.Ring, map[string]any{"events": []protocol.Event{ev}}, &out); st != 200 || len(out.Results) != 1 || out.Results[0].Outcome != want {
				t.Fatalf("%s: %d %+v, want %s", ev.EventID, st, out, want)
			}
		}
		// Desk clock 3 hours ahead: filed under the server's time.
		send(tok, protocol.Event{EventID: "ahead-event", Kind: "redeem", Code: h.Codes[0], Operator: "li", At: now + 3*3600, Offline: true}, "redeemed")
		// A plausible desk time 45 minutes back: filed under it.
		send(tok, protocol.Event{EventID: "earlier-event", Kind: "redeem", Code: h.Codes[1], Operator: "li", At: now - 45*60, Offline: true}, "redeemed")
		// Redeemed offline while disabled.
		send(other, protocol.Event{EventID: "disable-event", Kind: "disable", Code: h.Codes[2], Operator: "wang", At: now - 3600, Reason: "label torn"}, "disabled")
		send(tok, protocol.Event{EventID: "while-disabled-event", Kind: "redeem", Code: h.Codes[2], Operator: "li", At: now - 10*60, Offline: true}, "redeemed")

		ctx := context.Background()
		from, to := now-12*3600, now+12*3600
		before, err := h.DB.DayActivity(ctx, from, to)
		if err != nil {
			t.Fatal(err)
		}
		wantQuarters := map[int64]int{now / central.QuarterSeconds: 1, (now - 45*60) / central.QuarterSeconds: 1, (now - 10*60) / central.QuarterSeconds: 1}
		if !reflect.DeepEqual(before.Quarters, wantQuarters) {
			t.Fatalf("quarters %v, want %v", before.Quarters, wantQuarters)
		}

		// The database as an older server left it: the wording only.
		postgres := strings.HasPrefix(path, "postgres")
		driver, version := "sqlite", "8"
		if postgres {
			driver, version = "pgx", "10"
		}
		raw, err := sql.Open(driver, path)
		if err != nil {
			t.Fatal(err)
		}
		defer raw.Close()
		for _, q := range []string{`ALTER TABLE events DROP COLUMN flags`, `ALTER TABLE events DROP COLUMN decided_at`,
			`DELETE FROM schema_migrations WHERE version = ` + version} {
			if _, err := raw.Exec(q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		upgraded, err := serverdb.Open(ctx, path) // migrates again
		if err != nil {
			t.Fatal(err)
		}
		defer upgraded.Close()
		after, err := upgraded.DayActivity(ctx, from, to)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(after, before) {
			t.Fatalf("day after the upgrade %+v, want %+v", after, before)
		}
		for id, want := range map[string]struct{ flags, decided int64 }{
			"ahead-event": {int64(central.FlagClockAhead), now}, "earlier-event": {0, now - 45*60}, "while-disabled-event": {int64(central.FlagWhileDisabled), now - 10*60}} {
			ev := serverdbtest.Of(t, upgraded).Event(serverdbtest.Where{EventID: id})
			flags, decided := int64(ev.Flags), ev.DecidedAt
			if flags != want.flags || decided != want.decided {
				t.Errorf("%s back-filled as flags %d decided at %d, want %d at %d", id, flags, decided, want.flags, want.decided)
			}
		}
		// The undo reads the back-filled flag: the label goes back to disabled.
		send(tok, protocol.Event{EventID: "undo-event", Kind: "undo", Code: h.Codes[2], Operator: "li", At: now, Reason: "wrong parcel", Undoes: "while-disabled-event"}, "undone")
		if n := serverdbtest.Of(t, upgraded).CountLabel(h.Codes[2], "disabled"); n != 1 {
			t.Fatal("the undo of a redemption made while disabled left the label redeemable after the upgrade")
		}
	})
}
