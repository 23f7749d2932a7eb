package ui

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"qrdesk/app"
	"qrdesk/protocol"
)

// staffRowOf is the Staff screen's row of name, nil when not listed.
func staffRowOf(s *staffScreen, name string) *staffRow {
	for i := range s.rows {
		if s.rows[i].op.Name == name {
			return &s.rows[i]
		}
	}
	return nil
}

// chooseStaff selects name's row on the Staff screen.
func chooseStaff(t *testing.T, h *signInHarness, name string) {
	t.Helper()
	fyne.DoAndWait(func() { h.ui.staff.choose(name) })
	if r := h.ui.staff.chosen(); r == nil || r.op.Name != name {
		t.Fatalf("%s is not on the Staff screen", name)
	}
}

// TestStaffScreenDoesWhatOperatorsDoes: the Staff screen is behind a
// supervisor's sign-in (nobody, or a picker, sees only how to sign in).
// Supervisor wang adds the picker zhang (the PIN twice; two that differ
// add nothing), sees li's PIN locked after five wrong PINs and lifts the
// lockout (li's PIN works at once), sets li a new PIN, renews li's badge
// (the old one is refused, the new one saved as a PDF) and removes zhang.
// Before, all of it took a command prompt ('qrdesk operators').
func TestStaffScreenDoesWhatOperatorsDoes(t *testing.T) {
	h := newSignInHarness(t, false)
	h.ui.env.saveDir = t.TempDir()
	s := h.ui.staff
	ctx := context.Background()
	fyne.DoAndWait(func() { h.ui.show("staff") })
	h.settle()
	if s.mode != staffGate || !strings.Contains(s.gateText.Text, "supervisor") {
		t.Fatalf("nobody signed in: the Staff screen is %q (%q)", s.mode, s.gateText.Text)
	}
	h.scan(t, h.liBadge, fyne.KeyReturn, T("SIGNED IN"))
	h.settle()
	if s.mode != staffGate {
		t.Fatalf("picker li signed in: the Staff screen is %q", s.mode)
	}
	h.scan(t, h.wBadge, fyne.KeyReturn, T("SIGNED IN"))
	waitFor(t, "wang signed in", func() bool { op, _ := h.ui.env.signIn.current(); return op.Name == "wang" })
	h.settle()
	if s.mode != staffManage || staffRowOf(s, "li") == nil || staffRowOf(s, "wang") == nil {
		t.Fatalf("supervisor wang signed in: the Staff screen is %q with %d rows", s.mode, len(s.rows))
	}

	// Add a picker; two PINs that differ add nothing.
	add := func(name, pin, again string) {
		fyne.DoAndWait(func() {
			s.name.SetText(name)
			s.pin.SetText(pin)
			s.again.SetText(again)
			test.Tap(s.add)
		})
		h.settle()
	}
	add("zhang", "2468", "2486")
	if !strings.Contains(s.message.Text, "differ") || staffRowOf(s, "zhang") != nil {
		t.Fatalf("two PINs that differ: %q", s.message.Text)
	}
	add("zhang", "2468", "2468")
	if staffRowOf(s, "zhang") == nil || !strings.Contains(s.message.Text, "zhang was added as a picker") {
		t.Fatalf("after adding zhang: %q", s.message.Text)
	}
	if op, err := h.operators.SignInPIN(ctx, "zhang", "2468"); err != nil || op.Supervisor {
		t.Fatalf("zhang's PIN: %+v %v", op, err)
	}

	// Five wrong PINs lock li's PIN; the supervisor lifts the lockout.
	for range app.PINTries {
		h.operators.SignInPIN(ctx, "li", "0000")
	}
	if _, err := h.operators.SignInPIN(ctx, "li", h.liPIN); err == nil || !strings.Contains(err.Error(), "too many wrong PINs") {
		t.Fatalf("li's right PIN after five wrong ones: %v", err)
	}
	fyne.DoAndWait(s.refresh)
	h.settle()
	if r := staffRowOf(s, "li"); r == nil || !r.lock.Locked() || !strings.Contains(staffRowText(*r), "PIN locked for 1 minute") {
		t.Fatalf("li's row does not show the lockout: %+v", r)
	}
	chooseStaff(t, h, "li")
	if s.unlock.Disabled() {
		t.Fatal("Lift the PIN lockout is disabled for li, whose PIN is locked")
	}
	fyne.DoAndWait(func() { test.Tap(s.unlock) })
	h.settle()
	if _, err := h.operators.SignInPIN(ctx, "li", h.liPIN); err != nil {
		t.Fatalf("li's PIN after the lift: %v", err)
	}

	// A new PIN for li (forgotten).
	chooseStaff(t, h, "li")
	fyne.DoAndWait(func() { test.Tap(s.setPIN) })
	fyne.DoAndWait(func() {
		s.newPIN.SetText("97531")
		s.newPINAgain.SetText("97531")
		s.pinDialog.Submit()
	})
	h.settle()
	if _, err := h.operators.SignInPIN(ctx, "li", "97531"); err != nil {
		t.Fatalf("li's new PIN: %v (the screen says %q)", err, s.message.Text)
	}

	// Renew li's badge: the old one stops; save the new one.
	chooseStaff(t, h, "li")
	fyne.DoAndWait(func() { test.Tap(s.renew) })
	keyboard{h.win}.press(fyne.KeyReturn)
	h.settle()
	if _, err := h.operators.SignInBadge(ctx, h.liBadge); err == nil {
		t.Fatal("li's old badge still signs in after Renew the badge")
	}
	chooseStaff(t, h, "li")
	fyne.DoAndWait(func() { test.Tap(s.badge) })
	h.settle()
	if _, err := os.Stat(filepath.Join(h.ui.env.saveDir, "qrdesk-badge-li.pdf")); err != nil {
		t.Fatalf("li's new badge: %v (%q)", err, s.message.Text)
	}

	// Remove zhang.
	chooseStaff(t, h, "zhang")
	fyne.DoAndWait(func() { test.Tap(s.remove) })
	keyboard{h.win}.press(fyne.KeyReturn)
	h.settle()
	if _, err := h.operators.Find(ctx, "zhang"); app.KindOf(err) != app.KindNotFound || staffRowOf(s, "zhang") != nil {
		t.Fatalf("zhang after Remove: %v", err)
	}
}

// TestStaffScreenOnTheStaffList: at a desk that signs in the deployment's
// staff list, an operator added on the Staff screen goes through the same
// service as 'qrdesk operators add': a staff event waits in the outbox for
// the server, the PIN only as its hash. The screen says so.
func TestStaffScreenOnTheStaffList(t *testing.T) {
	h := newSignInHarness(t, false)
	if _, err := h.db.SQL().Exec(`INSERT INTO sync_state (key, value) VALUES ('server_kinds', ?)`, `["`+protocol.KindStaff+`"]`); err != nil {
		t.Fatal(err)
	}
	s := h.ui.staff
	h.scan(t, h.wBadge, fyne.KeyReturn, T("SIGNED IN"))
	waitFor(t, "wang signed in", func() bool { op, _ := h.ui.env.signIn.current(); return op.Name == "wang" })
	fyne.DoAndWait(func() { h.ui.show("staff") })
	h.settle()
	if s.mode != staffManage || !strings.Contains(s.shared.Text, "staff list") {
		t.Fatalf("the Staff screen of a desk on the staff list is %q and says %q", s.mode, s.shared.Text)
	}
	fyne.DoAndWait(func() {
		s.name.SetText("zhao")
		s.pin.SetText("1593")
		s.again.SetText("1593")
		s.super.SetChecked(true)
		test.Tap(s.add)
	})
	h.settle()
	var staff string
	if err := h.db.SQL().QueryRow(`SELECT staff FROM outbox WHERE kind = ?`, protocol.KindStaff).Scan(&staff); err != nil {
		t.Fatalf("no staff event for the server: %v (%q)", err, s.message.Text)
	}
	var ch protocol.StaffChange
	if err := json.Unmarshal([]byte(staff), &ch); err != nil || ch.Action != protocol.StaffAdd || ch.Name != "zhao" || !ch.Supervisor || strings.Contains(staff, "1593") {
		t.Fatalf("the staff event %s: %v", staff, err)
	}
}

// TestStaffScreenFirstSupervisor: a window (not desk mode) on a desk that
// never had a supervisor offers the first one on its Staff screen; a desk
// whose supervisors were all removed says how to add one instead (a
// picker at the counter must not make themselves one).
func TestStaffScreenFirstSupervisor(t *testing.T) {
	h := newStaffHarness(t, false, nil)
	s := h.ui.staff
	fyne.DoAndWait(func() { h.ui.show("staff") })
	h.settle()
	if s.mode != staffFirst {
		t.Fatalf("a fresh desk's Staff screen is %q", s.mode)
	}
	typeInto(s.first.name, "wang")
	typeInto(s.first.pin, "8765")
	typeInto(s.first.again, "8765")
	h.settle()
	if s.mode != staffManage || staffRowOf(s, "wang") == nil {
		t.Fatalf("after the first supervisor the Staff screen is %q: %q", s.mode, s.message.Text)
	}
	if r := s.chosen(); r == nil || r.op.Name != "wang" || !strings.Contains(s.message.Text, "save their badge") {
		t.Fatalf("wang is not chosen for the badge: %q", s.message.Text)
	}

	gone := newStaffHarness(t, false, func(h *signInHarness) {
		ctx := context.Background()
		h.operators.Add(ctx, "wang", "8765", true, "admin")
		h.operators.Remove(ctx, "wang", "admin")
	})
	fyne.DoAndWait(func() { gone.ui.show("staff") })
	gone.settle()
	if gone.ui.staff.mode != staffNone || !strings.Contains(gone.ui.staff.gateText.Text, "--supervisor") {
		t.Fatalf("a desk whose supervisors were removed: %q %q", gone.ui.staff.mode, gone.ui.staff.gateText.Text)
	}
	if _, err := gone.operators.AddFirstSupervisor(context.Background(), "li", "4321", "li"); app.KindOf(err) != app.KindConflict {
		t.Fatalf("a first supervisor where one was removed: %v", err)
	}
}
