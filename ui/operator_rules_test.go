package ui

import (
	"context"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// quitItem is the main menu's own Quit item, nil when there is none.
func quitItem(w fyne.Window) *fyne.MenuItem {
	if m := w.MainMenu(); m != nil {
		for _, menu := range m.Items {
			for _, it := range menu.Items {
				if it.IsQuit {
					return it
				}
			}
		}
	}
	return nil
}

// formUp waits for the sign-in or approval form.
func (h *signInHarness) formUp(t *testing.T) *signInForm {
	t.Helper()
	h.settle()
	waitFor(t, "the sign-in form", func() bool { return h.ui.env.signIn.form != nil })
	return h.ui.env.signIn.form
}

// TestIssueOverTheDailyQuantityNeedsSupervisor: a picker issues up to the
// daily quantity alone; past it the answer Issue asks a supervisor, and
// Esc in the approval form leaves it unissued. With pickers_issue off
// every batch needs a supervisor, and one approval covers the batch.
func TestIssueOverTheDailyQuantityNeedsSupervisor(t *testing.T) {
	h := newSignInHarness(t, false)
	ctx := context.Background()
	h.scan(t, h.liBadge, fyne.KeyReturn, T("SIGNED IN"))
	s := h.ui.issue
	kb := keyboard{h.win}
	issue := func(count string) {
		fyne.DoAndWait(func() {
			h.ui.show("issue")
			s.count.SetText(count)
		})
		// Showing the screen loads it off the UI goroutine; under the test
		// driver its hand-back runs on the loader's goroutine, so tapping
		// before it ends rendered the same widgets on two goroutines at once
		// (a "concurrent map writes" crash under wine).
		h.settle()
		fyne.DoAndWait(func() { test.Tap(s.issueBtn) })
		h.settle()
	}
	issue("100") // the daily quantity (100): no question, no approval
	if n := len(h.batches(t)); n != 1 || h.ui.env.signIn.form != nil {
		t.Fatalf("within the daily quantity: %d batches, form %v (%q)", n, h.ui.env.signIn.form != nil, s.status.Text)
	}

	issue("10")
	if h.win.Canvas().Overlays().Top() == nil {
		t.Fatal("no question before going over the daily quantity")
	}
	kb.press(fyne.KeyReturn) // "Issue" …
	f := h.formUp(t)         // … but a picker needs a supervisor
	if n := len(h.batches(t)); n != 1 {
		t.Fatalf("a picker went over the daily quantity alone: %d batches", n)
	}
	if f.ok.Text != T("Approve") {
		t.Fatalf("the approval's button says %q", f.ok.Text)
	}
	kb.press(fyne.KeyEscape) // in the name field
	if h.ui.env.signIn.form != nil || h.win.Canvas().Overlays().Top() != nil {
		t.Fatal("Esc did not close the approval form")
	}
	if s.issueBtn.Disabled() || !strings.Contains(s.status.Text, "Nothing issued") || len(h.batches(t)) != 1 {
		t.Fatalf("after Esc: button disabled %v, status %q, %d batches", s.issueBtn.Disabled(), s.status.Text, len(h.batches(t)))
	}
	// A picker cannot approve it; the supervisor can.
	issue("10")
	kb.press(fyne.KeyReturn)
	f = h.formUp(t)
	typeInto(f.name, "li")
	typeInto(f.pin, h.liPIN)
	waitFor(t, "the refusal", func() bool { return strings.Contains(f.message.Text, "not a supervisor") })
	typeInto(f.name, h.wBadge)
	waitFor(t, "the batch", func() bool { return strings.Contains(s.status.Text, "Batch 2: 10 codes") })
	if bs := h.batches(t); len(bs) != 2 || bs[0].Operator != "li" && bs[1].Operator != "li" {
		t.Fatalf("batches %+v", bs)
	}

	// Pickers may not issue at all: the form comes before anything.
	if _, err := h.svc.UpdateSettings(ctx, map[string]string{"pickers_issue": "false", "daily": "1000"}, "test"); err != nil {
		t.Fatal(err)
	}
	h.ui.env.reloadSettings()
	h.settle()
	issue("5")
	f = h.formUp(t)
	if n := len(h.batches(t)); n != 2 {
		t.Fatalf("issued without a supervisor: %d batches", n)
	}
	typeInto(f.name, "wang")
	typeInto(f.pin, h.wangPIN)
	waitFor(t, "the batch", func() bool { return strings.Contains(s.status.Text, "Batch 3: 5 codes") })
}

// TestLeavingAScreenClosesItsApproval: Ctrl+1 … Ctrl+5 close an approval
// form asked for on the screen left; the typing goes to the new screen.
func TestLeavingAScreenClosesItsApproval(t *testing.T) {
	h := newSignInHarness(t, false)
	h.scan(t, h.liBadge, fyne.KeyReturn, T("SIGNED IN"))
	codes := h.issue(t, 100)
	s := h.ui.issue
	kb := keyboard{h.win}
	kb.ctrl(fyne.Key2)
	fyne.DoAndWait(func() { s.count.SetText("5"); test.Tap(s.issueBtn) })
	h.settle()
	kb.press(fyne.KeyReturn)
	h.formUp(t)
	kb.ctrl(fyne.Key1)
	if h.ui.env.signIn.form != nil || h.win.Canvas().Overlays().Top() != nil {
		t.Fatal("the approval stayed up over the Scan screen")
	}
	if h.ui.current() != "scan" || s.issueBtn.Disabled() {
		t.Fatalf("on %s, Issue locked %v", h.ui.current(), s.issueBtn.Disabled())
	}
	// A label scanned now is redeemed on Scan, not typed into a stale form.
	kb.typeText(codes[0])
	kb.press(fyne.KeyReturn)
	waitFor(t, "the redemption", func() bool { return h.scanTitle() == T("REDEEMED") })
}

// TestEscClosesTheSignInForm: Ctrl+L opens it, Esc in its field closes it.
func TestEscClosesTheSignInForm(t *testing.T) {
	h := newSignInHarness(t, false)
	kb := keyboard{h.win}
	kb.ctrl(fyne.KeyL)
	f := h.formUp(t)
	if h.win.Canvas().Focused() != f.name {
		t.Fatal("the name field does not have the keyboard")
	}
	kb.typeText("wa")
	kb.press(fyne.KeyTab)
	kb.press(fyne.KeyEscape) // in the PIN field
	if h.ui.env.signIn.form != nil || h.win.Canvas().Overlays().Top() != nil {
		t.Fatal("Esc did not close the sign-in form")
	}
	if _, ok := h.ui.env.signIn.current(); ok {
		t.Fatal("someone is signed in")
	}
}

// TestLockedDeskQuitNeedsSupervisor: on a locked desk the Operator menu's
// Quit (and the window's close button) ask a supervisor first.
func TestLockedDeskQuitNeedsSupervisor(t *testing.T) {
	h := newSignInHarness(t, true)
	closed := false
	fyne.DoAndWait(func() { h.win.SetOnClosed(func() { closed = true }) })
	h.scan(t, h.liBadge, fyne.KeyReturn, T("SIGNED IN"))
	quit := quitItem(h.win)
	if quit == nil {
		t.Fatal("the locked desk's menu has no Quit of its own (Fyne would add one that quits at once)")
	}
	fyne.DoAndWait(quit.Action)
	h.formUp(t)
	if closed {
		t.Fatal("a picker quit the locked desk")
	}
	kb := keyboard{h.win}
	kb.press(fyne.KeyEscape)
	if closed || h.ui.env.signIn.form != nil {
		t.Fatalf("Esc: closed %v, form up %v", closed, h.ui.env.signIn.form != nil)
	}
	fyne.DoAndWait(quit.Action)
	f := h.formUp(t)
	typeInto(f.name, h.liBadge)
	waitFor(t, "the refusal", func() bool { return strings.Contains(f.message.Text, "not a supervisor") })
	if closed {
		t.Fatal("a picker approved quitting")
	}
	typeInto(f.name, h.wBadge)
	waitFor(t, "the window closed", func() bool { return closed })
}
