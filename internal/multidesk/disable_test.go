package multidesk_test

import (
	"context"
	"testing"

	"qrdesk/app"
	"qrdesk/deskclient"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// Disabling and enabling labels across desks. Each runs on both engines
// (unless it says otherwise) with real desks (their own SQLite files, the
// real sync code) on loopback. "Defect N" numbers the multi-desk defects
// found by trying the server as a hostile user would.

// Defect 5 (PostgreSQL) and coverage: disables and enables travel to the
// server and to every desk, on both engines.
func TestDisableEnableTravel(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 2)
		if _, err := a.Svc.SetDisabled(context.Background(), codes[0], true, "torn label", "li"); err != nil {
			t.Fatal(err)
		}
		a.Sync(t)
		b.Sync(t)
		if n := h.Server(t).CountLabel(codes[0], "disabled"); n != 1 {
			t.Fatal("the server did not disable the label")
		}
		if v := b.Redeem(t, codes[0], "wang"); v.Outcome != app.OutcomeDisabled {
			t.Fatalf("desk B, disabled label: %+v", v)
		}
		if _, err := b.Svc.SetDisabled(context.Background(), codes[0], false, "", "wang"); err != nil {
			t.Fatal(err)
		}
		b.Sync(t)
		a.Sync(t)
		if v := a.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A after desk B enabled it: %+v", v)
		}
	})
}

// TestDeskRefusesWhatItDisabled (found by the hostile pass): a desk that
// disabled a label (not uploaded yet) and then scans it must refuse it,
// not ask the server, which still has it unused; the same for a label it
// redeemed offline and has not uploaded.
func TestDeskRefusesWhatItDisabled(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, _, codes := centraltest.TwoDesks(t, dbPath, 2)
		if _, err := a.Svc.SetDisabled(context.Background(), codes[0], true, "reported stolen", "li"); err != nil {
			t.Fatal(err)
		}
		if v := a.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeDisabled {
			t.Fatalf("the desk that disabled the label: %+v", v)
		}
		token := "qrd_test_Desk_A"
		a.Svc.Remote = deskclient.New("http://127.0.0.1:1", token)
		if v := a.Redeem(t, codes[1], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("offline: %+v", v)
		}
		a.Svc.Remote = deskclient.New(h.URL, token)
		if v := a.Redeem(t, codes[1], "li"); v.Outcome != app.OutcomeAlreadyUsed {
			t.Fatalf("online again, before its offline event is uploaded: %+v", v)
		}
		a.Sync(t)
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM codes WHERE status = 'used'`); n != 1 {
			t.Fatalf("%d labels used on the server, want 1", n)
		}
		if n := h.Server(t).CountLabel(codes[0], "disabled"); n != 1 {
			t.Fatal("the disable did not reach the server")
		}
		if n := h.Server(t).CountConflicts(); n != 0 {
			t.Fatalf("%d conflicts, want none", n)
		}
	})
}

// TestTogglesConverge (found by the hostile pass): desk B disables a label
// and does not sync; desk A disables it, syncs, enables it, syncs; then
// everyone syncs. The server applies B's disable last: every desk must end
// with the label disabled, B included (it used to skip its own change and
// apply A's older enable over it).
func TestTogglesConverge(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 1)
		c := h.Desk(t, "Desk C", "C", h.Station(t, "Desk C", "C"))
		c.Sync(t)
		l := codes[0]
		toggle := func(d *centraltest.Desk, disable bool, reason string) {
			t.Helper()
			if _, err := d.Svc.SetDisabled(context.Background(), l, disable, reason, "op"); err != nil {
				t.Fatal(err)
			}
		}
		toggle(b, true, "damaged label")
		toggle(a, true, "lost")
		a.Sync(t)
		toggle(a, false, "")
		a.Sync(t)
		for i := 0; i < 2; i++ {
			for _, d := range []*centraltest.Desk{b, a, c} {
				d.Sync(t)
			}
		}
		server := h.Server(t).Status(l)
		for name, d := range map[string]*centraltest.Desk{"A": a, "B": b, "C": c} {
			var local string
			d.DB.SQL().QueryRow(`SELECT status FROM codes WHERE code = ?`, l).Scan(&local)
			if local != server {
				t.Errorf("desk %s says %s, the server %s", name, local, server)
			}
		}
		if server != "disabled" {
			t.Fatalf("the server says %s, want disabled (desk B's disable came last)", server)
		}
	})
}
