package store

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"qrdesk/app"
)

func TestOperatorsSignIn(t *testing.T) {
	ctx := context.Background()
	svc, db, clock := mustOpen(t)
	staff := app.NewOperators(db, svc.Keys, clock.Now)
	li, err := staff.Add(ctx, "li", "4321", false, "admin")
	if err != nil {
		t.Fatal(err)
	}
	wang, err := staff.Add(ctx, "Wang", "876543", true, "admin")
	if err != nil {
		t.Fatal(err)
	}
	liBadge, _ := staff.Badge(li)
	wangBadge, _ := staff.Badge(wang)

	t.Run("OK", func(t *testing.T) {
		op, err := staff.SignInBadge(ctx, strings.ToLower(wangBadge)+"\r")
		if err != nil || op.Name != "Wang" || !op.Supervisor {
			t.Fatalf("badge sign-in: %+v %v", op, err)
		}
		op, err = staff.SignInPIN(ctx, "WANG", "876543")
		if err != nil || op.ID != wang.ID {
			t.Fatalf("PIN sign-in: %+v %v", op, err)
		}
	})
	t.Run("ErrForged", func(t *testing.T) {
		forged := liBadge[:len(liBadge)-1] + map[bool]string{true: "3", false: "2"}[strings.HasSuffix(liBadge, "2")]
		if _, err := staff.SignInBadge(ctx, forged); err == nil || !strings.Contains(app.ErrorMessage(err), "not made at this desk or was altered") {
			t.Fatalf("forged badge: %v", err)
		}
		// A badge of this operator id signed by another desk's key ring.
		other, _ := app.LoadKeys(t.TempDir()+"/other.key", true)
		list, _ := db.OperatorList(ctx)
		b, _ := other.BadgeFor(li, app.BadgeScope{ID: list.DeskID})
		if _, err := staff.SignInBadge(ctx, b.String()); err == nil {
			t.Fatal("another desk's badge signed in")
		}
		// This desk's key ring, another desk's list.
		b, _ = svc.Keys.BadgeFor(li, app.BadgeScope{ID: "another desk"})
		if _, err := staff.SignInBadge(ctx, b.String()); err == nil || !strings.Contains(app.ErrorMessage(err), "not made at this desk") {
			t.Fatalf("a badge of another desk's list sharing the key ring: %v", err)
		}
		// A badge of a deployment's staff list, at a desk with its own.
		b, _ = svc.Keys.BadgeFor(app.Operator{Name: li.Name, StaffID: li.ID, BadgeVersion: 1}, app.BadgeScope{Shared: true, ID: svc.Keys.RingID()})
		if _, err := staff.SignInBadge(ctx, b.String()); err == nil || !strings.Contains(app.ErrorMessage(err), "keeps its own list") {
			t.Fatalf("a staff list's badge at a desk with its own list: %v", err)
		}
		// A badge printed before badges named their list.
		if _, err := staff.SignInBadge(ctx, "QRDESK-BADGE-000001-0001-A2345678923456789"); err == nil || !strings.Contains(app.ErrorMessage(err), "print a new one") {
			t.Fatalf("a badge of the first format: %v", err)
		}
		if _, err := staff.SignInBadge(ctx, "QRDESK-BADGE-D-999999-0001-A2345678923456789"); err == nil {
			t.Fatal("a badge of an operator that never existed signed in")
		}
	})
	t.Run("ErrRenewed", func(t *testing.T) {
		if _, err := staff.RenewBadge(ctx, "li", "admin"); err != nil {
			t.Fatal(err)
		}
		if _, err := staff.SignInBadge(ctx, liBadge); err == nil || !strings.Contains(app.ErrorMessage(err), "replaced by a newer one") {
			t.Fatalf("old badge after renew: %v", err)
		}
		li, _ = db.OperatorByName(ctx, "li")
		newBadge, _ := staff.Badge(li)
		if _, err := staff.SignInBadge(ctx, newBadge); err != nil {
			t.Fatalf("new badge: %v", err)
		}
		liBadge = newBadge
	})
	t.Run("ErrRemoved", func(t *testing.T) {
		if _, err := staff.Remove(ctx, "li", "admin"); err != nil {
			t.Fatal(err)
		}
		if _, err := staff.SignInBadge(ctx, liBadge); err == nil || !strings.Contains(app.ErrorMessage(err), "li was removed from this desk") {
			t.Fatalf("removed operator's badge: %v", err)
		}
		if _, err := staff.SignInPIN(ctx, "li", "4321"); err == nil {
			t.Fatal("removed operator's PIN signed in")
		}
		// Re-added under the same name: a new id, so the old badge stays dead.
		li2, err := staff.Add(ctx, "li", "4321", false, "admin")
		if err != nil || li2.ID == li.ID {
			t.Fatalf("add li again: %+v %v", li2, err)
		}
		if _, err := staff.SignInBadge(ctx, liBadge); err == nil {
			t.Fatal("the old li's badge signs in the new li")
		}
	})
	t.Run("SetPIN", func(t *testing.T) {
		if _, err := staff.SetPIN(ctx, "wang", "24680", "admin"); err != nil {
			t.Fatal(err)
		}
		if _, err := staff.SignInPIN(ctx, "Wang", "876543"); err == nil {
			t.Fatal("the old PIN still works")
		}
		if _, err := staff.SetPIN(ctx, "wang", "12", "admin"); err == nil || !strings.Contains(app.ErrorMessage(err), "use at least 4") {
			t.Fatalf("a 2-digit PIN: %v", err)
		}
		if _, err := staff.SetPIN(ctx, "nobody", "1234", "admin"); app.KindOf(err) != app.KindNotFound {
			t.Fatalf("set the PIN of nobody: %v", err)
		}
		if _, err := staff.SignInPIN(ctx, "Wang", "24680"); err != nil {
			t.Fatalf("the new PIN: %v", err)
		}
		if _, err := staff.SetPIN(ctx, "wang", "876543", "admin"); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("ErrTooManyPINs", func(t *testing.T) {
		// A sign-in by PIN starts the count again (li's removed PIN above was one).
		if _, err := staff.SignInPIN(ctx, "Wang", "876543"); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < app.PINTries; i++ {
			if _, err := staff.SignInPIN(ctx, "Wang", "000000"); err == nil || !strings.Contains(app.ErrorMessage(err), "name or PIN is wrong") {
				t.Fatalf("wrong PIN %d: %v", i, err)
			}
		}
		// Now even the right PIN waits.
		if _, err := staff.SignInPIN(ctx, "Wang", "876543"); err == nil || !strings.Contains(app.ErrorMessage(err), "too many wrong PINs for Wang: try again in 1 minute") {
			t.Fatalf("right PIN while locked: %v", err)
		}
		// Restarting the window does not help: the count is in the database.
		restarted := app.NewOperators(db, svc.Keys, clock.Now)
		if _, err := restarted.SignInPIN(ctx, "Wang", "876543"); err == nil || !strings.Contains(app.ErrorMessage(err), "too many wrong PINs") {
			t.Fatalf("right PIN after a restart while locked: %v", err)
		}
		// A badge still works meanwhile.
		if _, err := staff.SignInBadge(ctx, wangBadge); err != nil {
			t.Fatalf("badge while PINs are locked: %v", err)
		}
		clock.Advance(61 * time.Second)
		// Another name's wrong PIN is not Wang's.
		if _, err := staff.SignInPIN(ctx, "nobody", "1234"); err == nil || strings.Contains(app.ErrorMessage(err), "too many") {
			t.Fatalf("a first wrong PIN for nobody: %v", err)
		}
		// One more wrong PIN for Wang locks Wang for twice as long.
		staff.SignInPIN(ctx, "wang", "000000")
		if _, err := staff.SignInPIN(ctx, "Wang", "876543"); err == nil || !strings.Contains(app.ErrorMessage(err), "try again in 2 minutes") {
			t.Fatalf("after a sixth wrong PIN: %v", err)
		}
		clock.Advance(121 * time.Second)
		if _, err := staff.SignInPIN(ctx, "Wang", "876543"); err != nil {
			t.Fatalf("right PIN after the wait: %v", err)
		}
		// The count starts again after a success.
		if _, err := staff.SignInPIN(ctx, "Wang", "111111"); err == nil || strings.Contains(app.ErrorMessage(err), "too many") {
			t.Fatalf("first wrong PIN after a success: %v", err)
		}
	})
	if n := count(t, db, `SELECT count(*) FROM audit WHERE action = 'sign_in_refused'`); n < 10 {
		t.Fatalf("%d refused sign-ins audited", n)
	}
	if n := count(t, db, `SELECT count(*) FROM audit WHERE action = 'sign_in' AND subject = 'Wang' AND operator = 'Wang'`); n != 6 {
		t.Fatalf("%d sign-ins of Wang audited, want 6", n)
	}
}

// TestOperatorsRecheck: an operator who signed in earlier counts only while
// current: a supervisor removed, or whose badge was renewed or PIN changed
// since, approves nothing more, and a picker never approves as a supervisor.
func TestOperatorsRecheck(t *testing.T) {
	ctx := context.Background()
	svc, db, _ := mustOpen(t)
	staff := app.NewOperators(db, svc.Keys, svc.Now)
	if _, err := staff.Add(ctx, "li", "4321", false, "admin"); err != nil {
		t.Fatal(err)
	}
	boss, err := staff.Add(ctx, "boss", "876543", true, "admin")
	if err != nil {
		t.Fatal(err)
	}
	badge, _ := staff.Badge(boss)
	signedIn, err := staff.SignInBadge(ctx, badge)
	if err != nil {
		t.Fatal(err)
	}
	li, err := staff.SignInPIN(ctx, "li", "4321")
	if err != nil {
		t.Fatal(err)
	}

	if got, err := staff.Recheck(ctx, signedIn, true); err != nil || got.Name != "boss" {
		t.Fatalf("a current supervisor: %+v %v", got, err)
	}
	if _, err := staff.Recheck(ctx, li, false); err != nil {
		t.Fatalf("a current picker: %v", err)
	}
	if _, err := staff.Recheck(ctx, li, true); !errors.Is(err, app.ErrNotSupervisor) || !strings.Contains(app.ErrorMessage(err), "li is not a supervisor") {
		t.Fatalf("a picker as supervisor: %v", err)
	}

	if _, err := staff.RenewBadge(ctx, "boss", "admin"); err != nil {
		t.Fatal(err)
	}
	_, err = staff.Recheck(ctx, signedIn, true)
	if !errors.Is(err, app.ErrBadgeReplaced) || !app.NoLongerCurrent(err) || app.KindOf(err) != app.KindConflict ||
		!strings.Contains(app.ErrorMessage(err), "the badge of boss was replaced since they signed in") {
		t.Fatalf("signed in before the badge was renewed: %v", err)
	}
	renewed, err := staff.SignInPIN(ctx, "boss", "876543")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := staff.Recheck(ctx, renewed, true); err != nil {
		t.Fatalf("signed in after the renewal: %v", err)
	}

	// A PIN someone else learnt: the supervisor gets a new one, and
	// whoever signed in with the old one (or with the badge) is asked
	// again; signed in with the new PIN, they count.
	if _, err := staff.SetPIN(ctx, "boss", "246801", "admin"); err != nil {
		t.Fatal(err)
	}
	_, err = staff.Recheck(ctx, renewed, true)
	if !errors.Is(err, app.ErrPINChanged) || !app.NoLongerCurrent(err) || app.KindOf(err) != app.KindConflict ||
		!strings.Contains(app.ErrorMessage(err), "the PIN of boss was changed since they signed in") {
		t.Fatalf("signed in with the PIN before it was changed: %v", err)
	}
	if renewed, err = staff.SignInPIN(ctx, "boss", "246801"); err != nil {
		t.Fatal(err)
	}
	if _, err := staff.Recheck(ctx, renewed, true); err != nil {
		t.Fatalf("signed in with the new PIN: %v", err)
	}

	if _, err := staff.Remove(ctx, "boss", "admin"); err != nil {
		t.Fatal(err)
	}
	if _, err := staff.Recheck(ctx, renewed, true); !errors.Is(err, app.ErrOperatorRemoved) || !strings.Contains(app.ErrorMessage(err), "boss was removed from this desk on") {
		t.Fatalf("a removed supervisor: %v", err)
	}
	// Added again under the same name: a new operator; the old sign-in
	// stays dead.
	if _, err := staff.Add(ctx, "boss", "876543", true, "admin"); err != nil {
		t.Fatal(err)
	}
	if _, err := staff.Recheck(ctx, renewed, true); !errors.Is(err, app.ErrOperatorRemoved) {
		t.Fatalf("the removed supervisor's sign-in after the name was added again: %v", err)
	}
	// A database error is not a refusal.
	db.Close()
	if _, err := staff.Recheck(ctx, li, false); err == nil || app.NoLongerCurrent(err) {
		t.Fatalf("with the database closed: %v", err)
	}
}

// TestPINLockoutPerName: a picker guesses a supervisor's PIN four times,
// signs in as themselves (which used to start the count again), and
// guesses again: the supervisor's PIN locks at the fifth wrong guess; the
// picker's own sign-in still works, and a sixth wrong PIN locks longer.
// Wrong PINs spread over many names lock the desk.
func TestPINLockoutPerName(t *testing.T) {
	ctx := context.Background()
	svc, db, clock := mustOpen(t)
	staff := app.NewOperators(db, svc.Keys, clock.Now)
	if _, err := staff.Add(ctx, "li", "4321", false, "admin"); err != nil {
		t.Fatal(err)
	}
	wang, err := staff.Add(ctx, "wang", "876543", true, "admin")
	if err != nil {
		t.Fatal(err)
	}
	guesses := []string{"000000", "111111", "222222", "333333", "444444", "555555", "666666", "777777"}
	locked := -1
	for i, guess := range guesses {
		// Alternate cases: the name's count is one whatever the case.
		name := map[bool]string{true: "wang", false: "WANG"}[i%2 == 0]
		_, err := staff.SignInPIN(ctx, name, guess)
		if err != nil && strings.Contains(app.ErrorMessage(err), "too many wrong PINs for") {
			locked = i
			break
		}
		if err == nil {
			t.Fatalf("guess %s signed in", guess)
		}
		if i%4 == 3 { // the picker signs in as themselves between guesses
			if _, err := staff.SignInPIN(ctx, "li", "4321"); err != nil {
				t.Fatalf("li's own sign-in after guess %d: %v", i+1, err)
			}
		}
		clock.Advance(time.Second)
	}
	if locked != app.PINTries {
		t.Fatalf("wang's PIN locked at guess %d, want after %d wrong ones", locked+1, app.PINTries)
	}
	// Wang's right PIN waits too; li's own PIN and wang's badge do not.
	if _, err := staff.SignInPIN(ctx, "wang", "876543"); err == nil || !strings.Contains(app.ErrorMessage(err), "too many wrong PINs for wang: try again in 1 minute") {
		t.Fatalf("wang's right PIN while locked: %v", err)
	}
	if _, err := staff.SignInPIN(ctx, "li", "4321"); err != nil {
		t.Fatalf("li while wang is locked: %v", err)
	}
	badge, _ := staff.Badge(wang)
	if _, err := staff.SignInBadge(ctx, badge); err != nil {
		t.Fatalf("wang's badge while the PIN is locked: %v", err)
	}
	// Once the wait is over, the right PIN works and ends wang's count.
	clock.Advance(61 * time.Second)
	if _, err := staff.SignInPIN(ctx, "wang", "876543"); err != nil {
		t.Fatalf("wang after the wait: %v", err)
	}

	// Guessing across names: every name gets fewer than PINTries, the desk
	// still locks after DeskPINTries.
	clock.Advance(time.Hour)
	names := []string{"wang", "zhao", "qian", "sun", "zhou"}
	for i := 0; i < app.DeskPINTries; i++ {
		if _, err := staff.SignInPIN(ctx, names[i%len(names)], "999999"); err == nil || strings.Contains(app.ErrorMessage(err), "too many") {
			t.Fatalf("spread guess %d: %v", i+1, err)
		}
		if i%len(names) == len(names)-1 {
			staff.SignInPIN(ctx, "li", "4321") // successes do not end the desk's count
		}
		clock.Advance(10 * time.Second)
	}
	if _, err := staff.SignInPIN(ctx, "li", "4321"); err == nil || !strings.Contains(app.ErrorMessage(err), "too many wrong PINs at this desk") {
		t.Fatalf("after %d wrong PINs across names: %v", app.DeskPINTries, err)
	}
	clock.Advance(15 * time.Minute)
	if _, err := staff.SignInPIN(ctx, "li", "4321"); err != nil {
		t.Fatalf("after the desk's window: %v", err)
	}
}

// TestPINLockoutClockBack: one wrong PIN, then the desk's clock is set
// back an hour (corrected by hand or by NTP): fewer than PINTries wrong
// PINs lock nothing, so the right PIN still signs in. The wrong PIN's log
// row being "in the future" used to lock the name for the hour.
func TestPINLockoutClockBack(t *testing.T) {
	ctx := context.Background()
	svc, db, clock := mustOpen(t)
	staff := app.NewOperators(db, svc.Keys, clock.Now)
	if _, err := staff.Add(ctx, "wang", "876543", true, "admin"); err != nil {
		t.Fatal(err)
	}
	if _, err := staff.SignInPIN(ctx, "wang", "111111"); err == nil {
		t.Fatal("a wrong PIN signed in")
	}
	clock.Advance(-time.Hour)
	if op, err := staff.SignInPIN(ctx, "wang", "876543"); err != nil || op.Name != "wang" {
		t.Fatalf("the right PIN after one wrong one and the clock set back: %+v %v", op, err)
	}
}
