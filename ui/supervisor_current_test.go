package ui

import (
	"context"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
)

// TestRemovedSupervisorApprovesNothing: a desk unlocked by a supervisor who
// is then removed ('qrdesk operators remove') approves nothing more under
// their name (the station name is not changed, the audit trail has nothing
// of theirs after the removal) and locks; a supervisor whose badge is
// renewed, or whose PIN is changed, is signed out by the window's check
// and the desk locks.
func TestRemovedSupervisorApprovesNothing(t *testing.T) {
	ctx := context.Background()
	h := newSignInHarness(t, true)
	h.scan(t, h.wBadge, fyne.KeyReturn, T("SIGNED IN"))
	waitFor(t, "wang's badge to unlock the desk", h.showsTabs)

	if _, err := h.operators.Remove(ctx, "wang", "admin"); err != nil {
		t.Fatal(err)
	}
	// Before any poll: the unlocked window is still up, and a picker tries
	// to save a new station name under wang.
	st := h.ui.settings
	fyne.DoAndWait(func() {
		h.ui.show("settings")
		st.fields["station_name"].setValue("Hijacked desk")
		st.saveAll()
	})
	waitFor(t, "the supervisor form", func() bool { return h.ui.env.signIn.form != nil })
	if msg := h.ui.env.signIn.form.message.Text; !strings.Contains(msg, "wang was removed from this desk") {
		t.Fatalf("the form says %q, want why wang no longer approves", msg)
	}
	if set, _ := h.db.LoadSettings(ctx); set.StationName == "Hijacked desk" {
		t.Fatal("the station name was changed under a removed supervisor")
	}
	var n int
	h.db.SQL().QueryRow(`SELECT count(*) FROM audit WHERE operator = 'wang' AND action = 'setting'`).Scan(&n)
	if n != 0 {
		t.Fatalf("%d settings audited under the removed supervisor", n)
	}
	if _, ok := h.ui.env.signIn.current(); ok || h.showsTabs() || h.ui.current() != "scan" {
		t.Fatal("the removed supervisor's unlock stayed")
	}
	fyne.DoAndWait(func() { h.ui.env.signIn.form.cancel.OnTapped() })

	// Another supervisor unlocks; their badge is renewed (lost): the
	// window's check signs them out and locks the desk.
	zhao, err := h.operators.Add(ctx, "zhao", "2468", true, "admin")
	if err != nil {
		t.Fatal(err)
	}
	zhaoBadge, _ := h.operators.Badge(zhao)
	h.scan(t, zhaoBadge, fyne.KeyReturn, T("SIGNED IN"))
	waitFor(t, "zhao's badge to unlock the desk", h.showsTabs)
	watch, stop := context.WithCancel(ctx)
	defer stop()
	go h.ui.env.signIn.watch(watch, h.ui.scan)
	if _, err := h.operators.RenewBadge(ctx, "zhao", "admin"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the renewed badge to lock the desk", func() bool { return !h.showsTabs() })
	waitFor(t, "SIGNED OUT", func() bool { return h.scanTitle() == T("SIGNED OUT") })
	if d := h.ui.scan.detail.Text; !strings.Contains(d, "The badge of zhao was renewed") {
		t.Fatalf("the Scan screen says %q", d)
	}
	if _, ok := h.ui.env.signIn.current(); ok {
		t.Fatal("zhao is still signed in with a renewed badge")
	}
	// The new badge unlocks again.
	zhao, _ = h.db.OperatorByName(ctx, "zhao")
	zhaoBadge, _ = h.operators.Badge(zhao)
	h.scan(t, zhaoBadge, fyne.KeyReturn, T("SIGNED IN"))
	waitFor(t, "the new badge to unlock the desk", h.showsTabs)

	// zhao's PIN became known to a picker, who unlocked with it; zhao
	// gets a new PIN ('qrdesk operators set-pin'): the window's check
	// signs out whoever unlocked before it, and the desk locks.
	if _, err := h.operators.SetPIN(ctx, "zhao", "97531", "admin"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the new PIN to lock the desk", func() bool { return !h.showsTabs() })
	if d := h.ui.scan.detail.Text; !strings.Contains(d, "The PIN of zhao was changed") {
		t.Fatalf("the Scan screen says %q", d)
	}
	if _, ok := h.ui.env.signIn.current(); ok {
		t.Fatal("zhao is still signed in after the PIN was changed")
	}
}
