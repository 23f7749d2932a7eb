package multidesk_test

import (
	"context"
	"errors"
	"testing"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// Badges and the staff list (issue #19 item 3). A badge names the list it
// is for in its signed message: the deployment's staff list on desks that
// sync with a server (the server keeps it; added, removed and renewed
// anywhere, it travels like a label change), or one desk's own list.

// signsIn signs in with badge at desk d, failing the test unless it signs
// in name (a supervisor when supervisor).
func signsIn(t *testing.T, d *centraltest.Desk, where, badge, name string, supervisor bool) {
	t.Helper()
	op, err := d.Svc.Operators().SignInBadge(context.Background(), badge)
	if err != nil {
		t.Fatalf("%s: the badge of %s was refused: %v", where, name, err)
	}
	if op.Name != name || op.Supervisor != supervisor {
		t.Fatalf("%s: the badge signed in %+v, want %s (supervisor %v)", where, op, name, supervisor)
	}
}

// refused checks that badge does not sign in at d.
func refused(t *testing.T, d *centraltest.Desk, where, badge string) {
	t.Helper()
	op, err := d.Svc.Operators().SignInBadge(context.Background(), badge)
	if err == nil {
		t.Fatalf("%s: the badge signed in %s (supervisor %v)", where, op.Name, op.Supervisor)
	}
	if !errors.Is(err, app.ErrSignInRefused) {
		t.Fatalf("%s: %v, want a refused sign-in", where, err)
	}
}

// badgeOf prints the current badge of name at d.
func badgeOf(t *testing.T, d *centraltest.Desk, name string) string {
	t.Helper()
	ops := d.Svc.Operators()
	op, err := ops.Find(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	badge, err := ops.Badge(op)
	if err != nil {
		t.Fatalf("badge of %s: %v", name, err)
	}
	return badge
}

// TestStaffListTravels: on a synced deployment, a supervisor added at desk
// A signs in at desk B with A's badge (and PIN) once both synced; renewed
// at A, the old badge is refused at B after B's next sync and the new one
// signs in there; removed at B, the badge is refused at every desk after
// its sync. The server holds the list, the PIN only as its hash. Both
// engines.
func TestStaffListTravels(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h, a, b, _ := centraltest.TwoDesks(t, dbPath, 1)
		if _, err := a.Svc.Operators().Add(ctx, "wang", "482913", true, "li"); err != nil {
			t.Fatal(err)
		}
		a.Sync(t)
		b.Sync(t)
		first := badgeOf(t, a, "wang")
		signsIn(t, a, "desk A", first, "wang", true)
		signsIn(t, b, "desk B", first, "wang", true)
		if op, err := b.Svc.Operators().SignInPIN(ctx, "wang", "482913"); err != nil || !op.Supervisor {
			t.Fatalf("desk B, wang's PIN: %+v %v", op, err)
		}
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM staff WHERE name = 'wang' AND supervisor AND removed_at = 0 AND badge_version = 1 AND pin_hash LIKE '$argon2id$%'`); n != 1 {
			t.Fatalf("the server's staff list has %d current supervisors wang with a PIN hash", n)
		}
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM changes WHERE data LIKE '%482913%'`) + centraltest.Count(t, h.DB, `SELECT count(*) FROM events WHERE reason LIKE '%482913%' OR detail LIKE '%482913%'`); n != 0 {
			t.Fatal("the PIN travelled in clear")
		}

		// Renewed at A: the old badge is refused at A at once, at B after
		// B's next sync; the new one signs in at both.
		if _, err := a.Svc.Operators().RenewBadge(ctx, "wang", "li"); err != nil {
			t.Fatal(err)
		}
		refused(t, a, "desk A, the renewed badge", first)
		a.Sync(t)
		b.Sync(t)
		refused(t, b, "desk B after its sync, the badge renewed at A", first)
		second := badgeOf(t, a, "wang")
		if second == first {
			t.Fatal("the renewed badge is the old one")
		}
		signsIn(t, b, "desk B, the new badge", second, "wang", true)
		if got := badgeOf(t, b, "wang"); got != second {
			t.Fatalf("desk B prints wang's badge %s, desk A %s: one list, one badge", got, second)
		}

		// Removed at B by a supervisor there: refused at every desk after
		// its sync.
		if _, err := b.Svc.Operators().Remove(ctx, "wang", "li"); err != nil {
			t.Fatal(err)
		}
		refused(t, b, "desk B, removed wang", second)
		b.Sync(t)
		a.Sync(t)
		refused(t, a, "desk A after its sync, wang removed at B", second)
		if _, err := a.Svc.Operators().SignInPIN(ctx, "wang", "482913"); err == nil {
			t.Fatal("desk A: removed wang signed in by PIN")
		}
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM staff WHERE name = 'wang' AND removed_at <> 0 AND badge_version = 2`); n != 1 {
			t.Fatal("the server's staff list does not hold wang removed with badge 2")
		}
	})
}

// TestStandaloneDeskRefusesAnotherDesksBadge: two desks without a server
// that share the key ring, each with its own supervisor wang (id 1 at
// both): each keeps its own list, and desk B refuses desk A's badge.
func TestStandaloneDeskRefusesAnotherDesksBadge(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := centraltest.New(t, func(t testing.TB) string { return t.TempDir() + "/server.db" }, 0)
	a := h.Desk(t, "Desk A", "A", "")
	b := h.Desk(t, "Desk B", "B", "")
	for _, d := range []*centraltest.Desk{a, b} {
		if _, err := d.Svc.Operators().Add(ctx, "wang", "482913", true, "li"); err != nil {
			t.Fatal(err)
		}
	}
	badgeA, badgeB := badgeOf(t, a, "wang"), badgeOf(t, b, "wang")
	signsIn(t, a, "desk A, its own badge", badgeA, "wang", true)
	signsIn(t, b, "desk B, its own badge", badgeB, "wang", true)
	refused(t, b, "desk B, desk A's badge", badgeA)
	refused(t, a, "desk A, desk B's badge", badgeB)
	// Renewed at A: B's list is not A's, B's badge still signs in at B.
	if _, err := a.Svc.Operators().RenewBadge(ctx, "wang", "li"); err != nil {
		t.Fatal(err)
	}
	refused(t, b, "desk B, desk A's renewed badge", badgeOf(t, a, "wang"))
	signsIn(t, b, "desk B, its own badge after A renewed", badgeB, "wang", true)
}
