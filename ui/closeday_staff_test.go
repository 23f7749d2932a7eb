package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"

	"qrdesk/app"
)

// TestPickerCannotExpireTheDay: picker li, signed in, opens Close the day
// with "Expire the day's unused labels" ticked. Expiring every unused label
// changes labels as Disable does, so the window asks for a supervisor; li's
// own PIN is refused as no supervisor's and nothing is expired. Supervisor
// wang's badge approves: the day closes with its unused labels expired,
// under wang's name, and li stays signed in. It used to close and expire
// under li's name alone.
func TestPickerCannotExpireTheDay(t *testing.T) {
	h := newSignInHarness(t, false)
	codes := h.issue(t, 3)
	h.scan(t, h.liBadge, fyne.KeyReturn, T("SIGNED IN"))
	h.scan(t, codes[0], fyne.KeyReturn, T("REDEEMED"))
	h.clock.Advance(8 * time.Hour)
	d := newCloseDayDialog(h.ui.env, nil)
	fyne.DoAndWait(func() {
		d.expire.SetChecked(true)
		d.run()
	})
	h.settle()
	f := h.ui.env.signIn.form
	if f == nil || d.closed != nil {
		t.Fatalf("a picker closed the day with expiry without a supervisor (closed %v)", d.closed != nil)
	}
	typeInto(f.name, "li")
	typeInto(f.pin, h.liPIN)
	waitFor(t, "li refused as supervisor", func() bool { return strings.Contains(f.message.Text, "li is not a supervisor") })
	if v, _ := h.svc.Check(context.Background(), codes[1]); v.Outcome != app.OutcomeValid {
		t.Fatalf("expired on a picker's approval: %s", v.Outcome)
	}
	typeInto(f.name, h.wBadge)
	waitFor(t, "the close", func() bool { return d.closed != nil })
	h.settle()
	if d.closed.Figures.Expired != 2 {
		t.Fatalf("the approved close expired %d labels, want 2", d.closed.Figures.Expired)
	}
	if v, _ := h.svc.Check(context.Background(), codes[1]); v.Outcome != app.OutcomeExpired {
		t.Fatalf("after the approved close the label is %s", v.Outcome)
	}
	if d.closed.Operator != "wang" {
		t.Errorf("the close is recorded under %q, want wang, who approved it", d.closed.Operator)
	}
	if op, _ := h.ui.env.signIn.current(); op.Name != "li" {
		t.Fatalf("after the approval %q is signed in, want li still", op.Name)
	}
}

// TestCloseTheDayTakesEnter: the Close the day question takes Enter as
// yes and Esc as no, like the window's other questions (it took neither:
// a clerk working from the keyboard had to reach for the mouse).
func TestCloseTheDayTakesEnter(t *testing.T) {
	h := newHarness(t)
	h.issue(t, 2)
	kb := keyboard{h.win}
	d := newCloseDayDialog(h.ui.env, nil)
	fyne.DoAndWait(func() { h.ui.show("today"); d.ask() })
	kb.press(fyne.KeyEscape)
	h.settle()
	if d.closed != nil || h.win.Canvas().Overlays().Top() != nil {
		t.Fatal("Esc did not say no to Close the day")
	}
	fyne.DoAndWait(d.ask)
	kb.press(fyne.KeyReturn)
	waitFor(t, "the close", func() bool { return d.closed != nil })
}
