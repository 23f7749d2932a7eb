package ui

import (
	"context"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"qrdesk/app"
)

// TestUndoAndReplaceTakeEnter: the Undo and Replace questions take Enter
// as yes (Esc as no), like the window's other questions. After a replace
// the table holds the new label under the old one and the detail shows it,
// with its Replace off until a new reason is typed; the detail has no
// empty "Type:" beside a ref.
func TestUndoAndReplaceTakeEnter(t *testing.T) {
	h := newHarness(t)
	kb := keyboard{h.win}
	_, issued, err := h.svc.Issue(context.Background(), app.IssueRequest{Count: 2, Ref: "ROUTE-7"})
	if err != nil {
		t.Fatal(err)
	}
	codes := []string{issued[0].String(), issued[1].String()}
	h.svc.Redeem(context.Background(), codes[1], "li")

	s := codesDetail(t, h, codes[1])
	if strings.Contains(s.detail.Text, "Type: ") {
		t.Errorf("the detail shows an empty type: %q", s.detail.Text)
	}
	fyne.DoAndWait(func() { s.reason.SetText("wrong parcel") })
	fyne.DoAndWait(func() { test.Tap(s.undoBtn) })
	if h.win.Canvas().Overlays().Top() == nil {
		t.Fatal("Undo did not ask")
	}
	kb.press(fyne.KeyEscape)
	if h.win.Canvas().Overlays().Top() != nil {
		t.Fatal("Esc did not close the Undo question")
	}
	fyne.DoAndWait(func() { test.Tap(s.undoBtn) })
	kb.press(fyne.KeyReturn)
	h.settle()
	waitFor(t, "the undo", func() bool { return s.current != nil && s.current.Status == app.StatusUnused })

	s = codesDetail(t, h, codes[0])
	fyne.DoAndWait(func() { s.reason.SetText("label torn"); test.Tap(s.replaceBtn) })
	kb.press(fyne.KeyReturn)
	h.settle()
	waitFor(t, "the new label", func() bool { return s.current != nil && s.current.Code != codes[0] })
	if len(s.rows) != 2 || s.rows[0].Code != codes[0] || s.rows[1].Code != s.current.Code {
		t.Fatalf("the table holds %d rows after the replace; want the old label, then the new one shown in the detail", len(s.rows))
	}
	if s.rows[0].Status != app.StatusDisabled {
		t.Errorf("the old row says %s, want disabled", s.rows[0].Status)
	}
	// A second press without a new reason replaces nothing.
	fyne.DoAndWait(func() { test.Tap(s.replaceBtn) })
	if h.win.Canvas().Overlays().Top() != nil {
		t.Fatal("Replace asked again with the reason field empty")
	}
}

// TestApprovalNamesTheAction: a picker's Disable asks a supervisor to
// approve "Disable WH-…", and Enable "Enable WH-…": the form said
// "Disable or enable" for either.
func TestApprovalNamesTheAction(t *testing.T) {
	h := newSignInHarness(t, false)
	codes := h.issue(t, 1)
	h.scan(t, h.liBadge, fyne.KeyReturn, T("SIGNED IN"))
	s := codesDetail(t, h.harness, codes[0])
	fyne.DoAndWait(func() {
		s.reason.SetText("label torn")
		test.Tap(s.disableBtn)
	})
	waitFor(t, "the approval form", func() bool { return h.ui.env.signIn.form != nil })
	if why := h.ui.env.signIn.form.why.Text; why != "Disable "+codes[0] {
		t.Fatalf("the approval of a Disable says %q", why)
	}
	typeInto(h.ui.env.signIn.form.name, h.wBadge)
	waitFor(t, "disabled", func() bool { return s.current != nil && s.current.Status == app.StatusDisabled })
	h.settle()
	fyne.DoAndWait(func() { test.Tap(s.enableBtn) })
	waitFor(t, "the approval form", func() bool { return h.ui.env.signIn.form != nil })
	if why := h.ui.env.signIn.form.why.Text; why != "Enable "+codes[0] {
		t.Fatalf("the approval of an Enable says %q", why)
	}
}
