package multidesk_test

import (
	"context"
	"testing"
	"time"

	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// TestStaffNamesMatchAsAtTheDesks: the server tells names apart exactly
// as a desk does (case folded for A–Z only, SQLite's NOCASE). A desk holds
// a picker "émile" beside the deployment's supervisor "Émile" (two
// names there); PostgreSQL's lower() folds É to é, so before the fix
// the server took the desk's set-pin of the picker for the supervisor:
// the picker's new PIN became the supervisor's at every desk. Both engines.
func TestStaffNamesMatchAsAtTheDesks(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h, a, b, _ := centraltest.TwoDesks(t, dbPath, 1)
		for _, d := range []*centraltest.Desk{a, b} {
			d.DB.UseClock(func() time.Time { return h.Now }) // the sign-in log's clock is the service's
		}
		changeStaff(t, h, protocol.StaffChange{Action: protocol.StaffAdd, Name: "Émile", Supervisor: true}, "135792")
		a.Sync(t)
		b.Sync(t)
		// The desk's administrator adds the picker émile, and later gives
		// them the PIN they ask for.
		if _, err := a.Svc.Operators().Add(ctx, "émile", "2468", false, "admin"); err != nil {
			t.Fatalf("desk A: adding the picker émile beside the supervisor Émile: %v", err)
		}
		a.Sync(t)
		if _, err := a.Svc.Operators().SetPIN(ctx, "émile", "4444", "admin"); err != nil {
			t.Fatal(err)
		}
		a.Sync(t)
		b.Sync(t)
		for _, d := range []struct {
			name string
			d    *centraltest.Desk
		}{{"A", a}, {"B", b}} {
			if op, err := d.d.Svc.Operators().SignInPIN(ctx, "Émile", "4444"); err == nil {
				t.Fatalf("desk %s: the picker's PIN signed in %s (supervisor %v)", d.name, op.Name, op.Supervisor)
			}
			if op, err := d.d.Svc.Operators().SignInPIN(ctx, "Émile", "135792"); err != nil || !op.Supervisor {
				t.Fatalf("desk %s: the supervisor's own PIN: %+v %v", d.name, op, err)
			}
		}
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM staff WHERE name = 'Émile' AND supervisor AND removed_at = 0`); n != 1 {
			t.Fatal("the server's supervisor Émile is gone")
		}
		// A removal of the picker removes the picker, never the supervisor.
		if _, err := a.Svc.Operators().Remove(ctx, "émile", "admin"); err != nil {
			t.Fatal(err)
		}
		a.Sync(t)
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM staff WHERE name = 'Émile' AND supervisor AND removed_at = 0`); n != 1 {
			t.Fatal("the desk's removal of the picker émile removed the supervisor Émile")
		}
	})
}
