package multidesk_test

import (
	"context"
	"testing"

	"qrdesk/app"
	"qrdesk/central"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// TestWriteCheckNamesTheAnswer (the soak's PostgreSQL seed 108245740): a
// desk that sends its events again after a restore gets the same numbers
// for the same events, in the same order, and the server may answer them
// otherwise (another desk's earlier redemption uploaded meanwhile: a
// conflict). Restored once more, to a backup from before the first
// restore, the server holds those numbers and events with the first
// answers: the desk held "conflict" where the server counts "redeemed".
// The server holds a write only if the desk's answer is the one it gave.
func TestWriteCheckNamesTheAnswer(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		g := newRestorable(t, dbPath)
		a := g.deskAt(t, "Desk A", "A")
		x := a.Issue(t, 2)[0]
		a.Sync(t)
		v := a.Redeem(t, x, "li")
		if v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A online: %+v", v)
		}
		number := int64(a.Count(t, `SELECT number FROM server_writes WHERE key = ?`, v.TraceID))
		if number == 0 {
			t.Fatalf("desk A holds no write number for its online redemption")
		}
		var st = stationNamed(t, g, "Desk A")
		for _, c := range []struct {
			outcome protocol.Outcome
			held    bool
		}{{"redeemed", true}, {"", true}, {"conflict", false}, {"already_used", false}} {
			held, err := g.DB.HoldsWrites(ctx, st, []protocol.WriteCheck{{Number: number, Key: v.TraceID, Outcome: c.outcome}})
			if err != nil {
				t.Fatal(err)
			}
			if held != c.held {
				t.Errorf("write %d of event %s answered %q: the server says held %v, want %v", number, v.TraceID, c.outcome, held, c.held)
			}
		}
		// What the desk names is the answer it holds.
		state, err := a.DB.ServerState(ctx)
		if err != nil {
			t.Fatal(err)
		}
		named := false
		for _, c := range state.Checks {
			if c.Key == v.TraceID {
				named = true
				if c.Outcome != "redeemed" {
					t.Errorf("desk A names its write %d with the answer %q, want redeemed", c.Number, c.Outcome)
				}
			}
		}
		if !named {
			t.Errorf("desk A does not name its unconfirmed write %d", number)
		}
		a.Sync(t)
		if n := a.Count(t, `SELECT count(*) FROM server_writes WHERE key = ? AND checked = 1`, v.TraceID); n != 1 {
			t.Errorf("desk A's write of its online redemption is not confirmed by the server after a sync")
		}
	})
}

// stationNamed returns the server's station of that name.
func stationNamed(t *testing.T, g *restorable, name string) central.Station {
	t.Helper()
	list, err := g.DB.Stations(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range list {
		if st.Name == name {
			return st
		}
	}
	t.Fatalf("the server has no station %q", name)
	return central.Station{}
}
