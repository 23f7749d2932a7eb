package ui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"qrdesk/app"
)

// newStaffHarness is the window with the operators service on a desk that
// prepare (if not nil) sets up first, in desk mode when desk is set; its
// saves go to a folder of the test's own.
func newStaffHarness(t *testing.T, desk bool, prepare func(h *signInHarness)) *signInHarness {
	t.Helper()
	h := &signInHarness{harness: newHarness(t), liPIN: "4321", wangPIN: "8765"}
	h.operators = app.NewOperators(h.db, h.svc.Keys, h.clock.Now)
	if prepare != nil {
		prepare(h)
	}
	h.win = fyne.CurrentApp().NewWindow("qrdesk")
	h.win.Resize(fyne.NewSize(1200, 800))
	h.ui.quiet() // the harness's first window, replaced by this one
	h.ui = openUI(t, fyne.CurrentApp(), h.win, h.svc, Options{Screen: "scan", Player: h.sound, TemplateDir: t.TempDir(), Operators: h.operators, Desk: desk})
	h.ui.env.saveDir = t.TempDir()
	return h
}

// TestPickupDeskAddsTheFirstSupervisor: the pickup desk ('gui --desk', the
// Start menu's "qrdesk pickup desk") on a fresh desk asks for the first
// supervisor at once: name and the PIN twice (two PINs that differ are
// refused, nothing added), then the supervisor is added, signed in, the
// desk unlocked, their badge saved as a PDF in the save folder, and the
// desk's set-up follows. Before, the pickup desk refused to start and sent
// the clerk to a command prompt.
func TestPickupDeskAddsTheFirstSupervisor(t *testing.T) {
	h := newStaffHarness(t, true, func(h *signInHarness) {
		h.svc.UpdateSettings(context.Background(), map[string]string{"configured": "false"}, "test")
	})
	fyne.DoAndWait(h.ui.start)
	waitFor(t, "the first supervisor's form", func() bool { return h.ui.first != nil })
	d := h.ui.first
	if h.showsTabs() {
		t.Fatal("the pickup desk is unlocked before it has a supervisor")
	}
	fill := func(name, pin, again string) {
		fyne.DoAndWait(func() {
			d.form.name.SetText("")
			d.form.pin.SetText("")
			d.form.again.SetText("")
		})
		typeInto(d.form.name, name)
		typeInto(d.form.pin, pin)
		typeInto(d.form.again, again)
		h.settle()
	}
	fill("wang", "1357", "1375")
	if msg := d.form.message.Text; !strings.Contains(msg, "differ") {
		t.Fatalf("two PINs that differ: the form says %q", msg)
	}
	if any, _ := h.operators.Any(context.Background()); any {
		t.Fatal("an operator was added with two PINs that differ")
	}
	fill("wang", "13", "13")
	if msg := d.form.message.Text; !strings.Contains(msg, "at least 4") {
		t.Fatalf("a PIN of 2 digits: the form says %q", msg)
	}
	fill("wang", "1357", "1357")
	waitFor(t, "wang signed in", func() bool { op, ok := h.ui.env.signIn.current(); return ok && op.Name == "wang" && op.Supervisor })
	waitFor(t, "the desk unlocked", h.showsTabs)
	if op, err := h.operators.SignInPIN(context.Background(), "wang", "1357"); err != nil || !op.Supervisor {
		t.Fatalf("wang's PIN: %+v %v", op, err)
	}

	fyne.DoAndWait(func() { test.Tap(d.badge) })
	h.settle()
	path := filepath.Join(h.ui.env.saveDir, "qrdesk-badge-wang.pdf")
	if info, err := os.Stat(path); err != nil || info.Size() == 0 || !strings.Contains(d.saved.Text, path) {
		t.Fatalf("the badge: %v, the dialog says %q", err, d.saved.Text)
	}
	fyne.DoAndWait(func() { d.dialog.Hide() })
	var setUp bool
	fyne.DoAndWait(func() { setUp = h.win.Canvas().Overlays().Top() != nil })
	if !setUp {
		t.Fatal("the desk's set-up did not follow the first supervisor")
	}
	// Now the desk has a supervisor: nobody adds a "first" one any more.
	if _, err := h.operators.AddFirstSupervisor(context.Background(), "li", "2468", "li"); app.KindOf(err) != app.KindConflict {
		t.Fatalf("a second first supervisor: %v", err)
	}
}

// TestPickupDeskSignInAsksForTheFirstSupervisor: on a pickup desk that
// never had a supervisor (a picker only), Sign in… (and Ctrl+L) opens the
// first supervisor's form, since no badge nor PIN could unlock it; once
// the desk has a supervisor it opens the sign-in form again. Quit needs
// no approval while nobody could give one.
func TestPickupDeskSignInAsksForTheFirstSupervisor(t *testing.T) {
	h := newStaffHarness(t, true, func(h *signInHarness) {
		if _, err := h.operators.Add(context.Background(), "li", "4321", false, "admin"); err != nil {
			t.Fatal(err)
		}
	})
	fyne.DoAndWait(func() { h.ui.env.signIn.signIn.OnTapped() })
	if h.ui.first == nil || h.ui.env.signIn.form != nil {
		t.Fatal("Sign in… on a desk without a supervisor did not ask for the first one")
	}
	if h.ui.hasSupervisor() {
		t.Fatal("a desk with a picker only counts as having a supervisor")
	}
	fyne.DoAndWait(func() { h.ui.first.dialog.Hide() })
	if _, err := h.operators.Add(context.Background(), "wang", "8765", true, "admin"); err != nil {
		t.Fatal(err)
	}
	first := h.ui.first
	fyne.DoAndWait(func() { h.ui.env.signIn.signIn.OnTapped() })
	if h.ui.first != first || h.ui.env.signIn.form == nil {
		t.Fatal("Sign in… on a desk with a supervisor did not open the sign-in form")
	}
}

// TestFirstSupervisorsBadgeSavedWithEnter: once the first supervisor is
// added, the keyboard is on *Save their badge*, and the clerk who typed the
// PIN and Enter presses Enter again. Fyne's button takes only Space, so
// that Enter did nothing and the dialog was closed with no badge saved:
// the buttons of the form and of the badge step take Enter, as every
// other focused button of the window does.
func TestFirstSupervisorsBadgeSavedWithEnter(t *testing.T) {
	h := newStaffHarness(t, true, func(h *signInHarness) {
		h.svc.UpdateSettings(context.Background(), map[string]string{"configured": "false"}, "test")
	})
	fyne.DoAndWait(h.ui.start)
	waitFor(t, "the first supervisor's form", func() bool { return h.ui.first != nil })
	d := h.ui.first
	typeInto(d.form.name, "Jürgen Groß")
	typeInto(d.form.pin, "4711")
	typeInto(d.form.again, "4711")
	h.settle()
	waitFor(t, "the badge step", func() bool { return h.win.Canvas().Focused() == d.badge })
	keyboard{h.win}.press(fyne.KeyReturn)
	h.settle()
	path := filepath.Join(h.ui.env.saveDir, "qrdesk-badge-Jürgen-Groß.pdf")
	if info, err := os.Stat(path); err != nil || info.Size() == 0 || !strings.Contains(d.saved.Text, path) {
		entries, _ := os.ReadDir(h.ui.env.saveDir)
		t.Fatalf("Enter on Save their badge: %v (the folder holds %v), the dialog says %q", err, entries, d.saved.Text)
	}
}

// TestFreshPickupDeskAsksForTheFirstSupervisorNotABadge: a fresh pickup
// desk said SCAN YOUR BADGE under the first supervisor's form, and went on
// saying it after *Later*, when no badge existed that could answer it: a
// dead end for the clerk. While the desk never had a supervisor the Scan
// screen says to add the first one and how (Sign in…, Ctrl+L); once they
// are added and sign out it asks for a badge again.
func TestFreshPickupDeskAsksForTheFirstSupervisorNotABadge(t *testing.T) {
	h := newStaffHarness(t, true, nil)
	fyne.DoAndWait(h.ui.start)
	waitFor(t, "the first supervisor's form", func() bool { return h.ui.first != nil })
	fyne.DoAndWait(func() { h.ui.first.dialog.Hide() }) // Later
	idle := func() (title, detail string) {
		fyne.DoAndWait(func() { h.ui.askBadge(); h.ui.scan.idle(); title, detail = h.ui.scan.title.Text, h.ui.scan.detail.Text })
		return
	}
	if title, detail := idle(); title != "ADD THE FIRST SUPERVISOR" || !strings.Contains(detail, "Ctrl+L") {
		t.Fatalf("a pickup desk with no supervisor says %q / %q between scans", title, detail)
	}
	if _, err := h.operators.Add(context.Background(), "wang", "8765", true, "admin"); err != nil {
		t.Fatal(err)
	}
	if title, _ := idle(); title != "SCAN YOUR BADGE" {
		t.Fatalf("once the desk has a supervisor it says %q", title)
	}
}
