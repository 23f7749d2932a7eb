package multidesk_test

import (
	"context"
	"testing"

	"qrdesk/app"
	"qrdesk/central"
	"qrdesk/deskclient"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// changeStaff makes an administrator's change of the deployment's staff
// list, as 'qrdesk-server operators' and the dashboard do.
func changeStaff(t *testing.T, h *centraltest.Harness, ch protocol.StaffChange, pin string) protocol.StaffMember {
	t.Helper()
	if pin != "" {
		var err error
		if ch.PINHash, err = app.HashPIN(pin); err != nil {
			t.Fatal(err)
		}
	}
	m, err := h.DB.ChangeStaff(context.Background(), ch, "manager", h.Now.Unix())
	if err != nil {
		t.Fatalf("%s: %v", ch.Summary(), err)
	}
	return m
}

// TestStaffListFromTheServer: the server's list is the deployment's
// truth. An operator added at the server signs in at every desk after its
// sync, renewed or removed there is refused after the desk's next sync; a
// desk that starts over after the feed was compacted gets the list from
// the snapshot; the operators a desk kept on its own list before it
// synced join the deployment's list (their old badges keep signing in
// at that desk, the new ones sign in everywhere), and where the deployment
// holds the name already, its record wins. Both engines.
func TestStaffListFromTheServer(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h, a, b, _ := centraltest.TwoDesks(t, dbPath, 1)
		changeStaff(t, h, protocol.StaffChange{Action: protocol.StaffAdd, Name: "zhao", Supervisor: true}, "1357")
		changeStaff(t, h, protocol.StaffChange{Action: protocol.StaffAdd, Name: "li"}, "2468")
		a.Sync(t)
		b.Sync(t)
		zhao := badgeOf(t, a, "zhao")
		signsIn(t, a, "desk A", zhao, "zhao", true)
		signsIn(t, b, "desk B", zhao, "zhao", true)

		renewed := changeStaff(t, h, protocol.StaffChange{Action: protocol.StaffRenewBadge, Name: "zhao"}, "")
		if renewed.BadgeVersion != 2 {
			t.Fatalf("renewed at the server: %+v", renewed)
		}
		a.Sync(t)
		refused(t, a, "desk A after its sync, renewed at the server", zhao)
		b.Sync(t)
		refused(t, b, "desk B after its sync, renewed at the server", zhao)
		zhao = badgeOf(t, b, "zhao")
		signsIn(t, a, "desk A, the new badge", zhao, "zhao", true)

		// A new PIN at the server: the old one no longer works at a desk.
		changeStaff(t, h, protocol.StaffChange{Action: protocol.StaffSetPIN, Name: "li"}, "97531")
		a.Sync(t)
		if _, err := a.Svc.Operators().SignInPIN(ctx, "li", "97531"); err != nil {
			t.Fatalf("desk A: li's new PIN: %v", err)
		}
		if _, err := a.Svc.Operators().SignInPIN(ctx, "li", "2468"); err == nil {
			t.Fatal("desk A: li's old PIN signed in after the server set a new one")
		}

		// A desk that starts over from a snapshot (the feed compacted
		// past it) has the list.
		h.Compact(t, h.Now.Unix()+1)
		c := h.Desk(t, "Desk C", "C", h.Station(t, "Desk C", "C"))
		c.Sync(t)
		signsIn(t, c, "desk C, started from a snapshot", zhao, "zhao", true)

		// Desk D kept its own list before it synced: its wu joins the
		// deployment's list; its own li gives way to the deployment's.
		d := h.Desk(t, "Desk D", "D", "")
		for _, op := range []struct {
			name, pin string
		}{{"wu", "8642"}, {"li", "1111"}} {
			if _, err := d.Svc.Operators().Add(ctx, op.name, op.pin, false, "admin"); err != nil {
				t.Fatal(err)
			}
		}
		ownBadge := badgeOf(t, d, "wu")
		signsIn(t, d, "desk D before it synced", ownBadge, "wu", false)
		d.Svc.Remote = deskclient.New(h.URL, h.Station(t, "Desk D", "D"))
		d.Sync(t)
		d.Sync(t) // the feed brings back what its first sync sent
		// wu is the same person on the list: the badge printed before
		// still signs in at D (TestBadgesPrintedBeforeJoiningKeepWorking).
		signsIn(t, d, "desk D after it joined, wu's badge of its own list", ownBadge, "wu", false)
		wu := badgeOf(t, d, "wu")
		a.Sync(t)
		signsIn(t, a, "desk A, desk D's wu", wu, "wu", false)
		if _, err := d.Svc.Operators().SignInPIN(ctx, "li", "97531"); err != nil {
			t.Fatalf("desk D: the deployment's li: %v", err)
		}
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM staff WHERE removed_at = 0`); n != 3 {
			t.Fatalf("the server's staff list has %d current operators, want zhao, li and wu", n)
		}

		changeStaff(t, h, protocol.StaffChange{Action: protocol.StaffRemove, Name: "zhao"}, "")
		for _, desk := range []struct {
			name string
			d    *centraltest.Desk
		}{{"A", a}, {"B", b}, {"C", c}, {"D", d}} {
			desk.d.Sync(t)
			refused(t, desk.d, "desk "+desk.name+" after its sync, zhao removed at the server", zhao)
		}
		if _, err := h.DB.ChangeStaff(ctx, protocol.StaffChange{Action: protocol.StaffRemove, Name: "zhao"}, "", h.Now.Unix()); err != central.ErrNoStaff {
			t.Fatalf("removing zhao twice: %v", err)
		}
	})
}
