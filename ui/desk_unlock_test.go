package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
)

// TestSupervisorUnlockEnds: supervisor wang unlocks a desk-mode window
// with the badge and walks away. 14 minutes later the desk is still
// unlocked; at 15 minutes (deskUnlockFor) the window signs wang out, locks
// and says why on the Scan screen. A picker signed in stays signed in
// however long. The unlock used to last until someone signed out.
func TestSupervisorUnlockEnds(t *testing.T) {
	h := newSignInHarness(t, true)
	watch, stop := context.WithCancel(context.Background())
	defer stop()
	go h.ui.env.signIn.watch(watch, h.ui.scan)

	h.scan(t, h.wBadge, fyne.KeyReturn, T("SIGNED IN"))
	waitFor(t, "wang's badge to unlock the desk", h.showsTabs)
	h.clock.Advance(14 * time.Minute)
	time.Sleep(signInCheckEvery + time.Second) // a check of the window
	if !h.showsTabs() {
		t.Fatal("the desk locked 14 minutes after the unlock")
	}
	h.clock.Advance(time.Minute)
	waitFor(t, "the unlock to end at 15 minutes", func() bool { return !h.showsTabs() })
	if _, ok := h.ui.env.signIn.current(); ok {
		t.Fatal("wang is still signed in")
	}
	waitFor(t, "SIGNED OUT", func() bool { return h.scanTitle() == T("SIGNED OUT") })
	if d := h.ui.scan.detail.Text; !strings.Contains(d, "wang") || !strings.Contains(d, "15 minutes") {
		t.Fatalf("the Scan screen says %q", d)
	}

	// A picker is not signed out by the time.
	h.scan(t, h.liBadge, fyne.KeyReturn, T("SIGNED IN"))
	h.clock.Advance(2 * time.Hour)
	time.Sleep(signInCheckEvery + time.Second)
	if op, ok := h.ui.env.signIn.current(); !ok || op.Name != "li" {
		t.Fatalf("the picker was signed out after two hours (%q, %v)", op.Name, ok)
	}
}
