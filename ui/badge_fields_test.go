package ui

import (
	"context"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"qrdesk/app"
)

// TestBadgeInAnyFieldIsNeverKept: at a desk with operators, picker li is
// signed in on the Codes screen.
//   - li's badge scanned into the search field: the field keeps nothing of
//     it, no search is made with it, li is signed in (again).
//   - "label torn" typed in Reason, then supervisor wang's badge scanned
//     there with its Enter: Reason still says "label torn", the Enter
//     disables nothing, wang is signed in; no audit row, setting or search
//     holds the badge's signature.
//   - wang replaces the label: the keyboard leaves Reason for the search
//     field, so the next scan does not start another action there.
//   - a badge misread by one letter of its marker, scanned on the Scan
//     screen, is refused as a badge and its text is stored nowhere (the
//     scan log and the recent list keep "(operator badge)" and no code).
//
// Each used to keep the badge in clear: in the field, as a search, as a
// disable's reason, and in full in the scan log as a bad label.
func TestBadgeInAnyFieldIsNeverKept(t *testing.T) {
	h := newSignInHarness(t, false)
	codes := h.issue(t, 2)
	h.scan(t, h.liBadge, fyne.KeyReturn, T("SIGNED IN"))
	kb := keyboard{h.win}
	signature := func(badge string) string { return badge[len(badge)-app.BadgeSignatureLen:] }

	s := codesDetail(t, h.harness, codes[0])
	fyne.DoAndWait(func() { h.ui.env.signIn.set(nil); h.win.Canvas().Focus(s.query); s.query.SetText("") })
	kb.typeText(strings.ToLower(h.liBadge)) // a scanner with Caps Lock on
	kb.press(fyne.KeyReturn)
	h.settle()
	if got := s.query.Text; got != "" {
		t.Fatalf("the search field keeps %q after a badge", got)
	}
	if op, ok := h.ui.env.signIn.current(); !ok || op.Name != "li" {
		t.Fatalf("li's badge in the search field signed in %q (%v)", op.Name, ok)
	}

	s = codesDetail(t, h.harness, codes[0])
	fyne.DoAndWait(func() { h.win.Canvas().Focus(s.reason) })
	kb.typeText("label torn")
	kb.typeText(h.wBadge)
	kb.press(fyne.KeyReturn)
	h.settle()
	if got := s.reason.Text; got != "label torn" {
		t.Fatalf("Reason says %q after the badge, want \"label torn\"", got)
	}
	if h.win.Canvas().Overlays().Top() != nil {
		t.Fatal("the badge's Enter in Reason asked something")
	}
	if v, _ := h.svc.Check(context.Background(), codes[0]); v.Status != app.StatusUnused {
		t.Fatalf("the badge's Enter in Reason changed the label: %s", v.Status)
	}
	if op, ok := h.ui.env.signIn.current(); !ok || op.Name != "wang" {
		t.Fatalf("wang's badge in Reason signed in %q (%v)", op.Name, ok)
	}

	// wang, signed in, replaces it: the keyboard leaves Reason.
	fyne.DoAndWait(func() { test.Tap(s.replaceBtn) })
	kb.press(fyne.KeyReturn) // yes to "Replace label?"
	waitFor(t, "the replacement", func() bool { return strings.Contains(s.message.Text, "Replaced by") })
	h.settle()
	if h.win.Canvas().Focused() == s.reason {
		t.Fatal("after the replace the keyboard is still in Reason")
	}
	if h.win.Canvas().Focused() != s.query {
		t.Errorf("after the replace the keyboard is not in the search field")
	}

	// A badge misread by one letter, on the Scan screen.
	misread := strings.Replace(h.wBadge, "BADGE", "BADGF", 1)
	fyne.DoAndWait(func() { h.ui.show("scan") })
	h.scan(t, misread, fyne.KeyReturn, T("OPERATOR BADGE"))
	h.settle()
	for _, q := range []string{`SELECT raw || '|' || code FROM scans`, `SELECT subject || '|' || detail FROM audit`, `SELECT value FROM settings`} {
		rows, err := h.db.SQL().Query(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		for rows.Next() {
			var v string
			rows.Scan(&v)
			for _, b := range []string{h.liBadge, h.wBadge} {
				if strings.Contains(strings.ToUpper(v), signature(b)) {
					t.Errorf("%s holds a badge's signature: %q", q, v)
				}
			}
		}
		rows.Close()
	}
	for _, r := range h.ui.scan.recent {
		if strings.Contains(r.code, signature(h.wBadge)) {
			t.Errorf("the recent list shows the misread badge: %q", r.code)
		}
	}
}

// TestBadgeInTheSetUpDialogIsNeverKept: a picker who scanned her badge
// while the station's set-up was up (a desk set up at the command line
// asks it at the window's first start) got the whole badge, signature and
// all, written into Prefix on the screen. The set-up's fields hold a badge
// back as every other field does, and the badge signs its operator in;
// typed before the field's text (the cursor at its start), the field keeps
// its text whole and the badge loses no letter to it.
func TestBadgeInTheSetUpDialogIsNeverKept(t *testing.T) {
	h := newSignInHarness(t, false)
	kb := keyboard{h.win}
	f := newSetupForm(h.ui.env)
	fyne.DoAndWait(func() { f.show(func() {}) })
	prefix := f.fields[f.order[0]].entry
	// The dialog puts the keyboard in Prefix, its cursor before the text
	// there: the badge is typed in front of "WH".
	fyne.DoAndWait(func() { prefix.SetText("WH"); h.win.Canvas().Focus(prefix) })
	if prefix.CursorColumn != 0 {
		t.Fatalf("the cursor is at %d in Prefix, want 0 (as the dialog has it)", prefix.CursorColumn)
	}
	kb.typeText(h.liBadge)
	kb.press(fyne.KeyReturn)
	h.settle()
	if got := prefix.Text; got != "WH" {
		t.Fatalf("Prefix says %q after li's badge, want \"WH\"", got)
	}
	if problem := f.fields[f.order[0]].problem; problem.Visible() {
		t.Fatalf("Prefix \"WH\" is refused after the badge: %q (the badge's first letters were checked, and the field never again)", problem.Text)
	}
	if op, ok := h.ui.env.signIn.current(); !ok || op.Name != "li" {
		t.Fatalf("li's badge in the set-up signed in %q (%v)", op.Name, ok)
	}
	for _, key := range f.order {
		for _, en := range f.fields[key].entries() {
			if strings.Contains(en.Text, "BADGE") {
				t.Fatalf("the set-up's %s field shows the badge: %q", key, en.Text)
			}
		}
	}
}
