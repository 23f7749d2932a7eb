package ui

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"unicode"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"qrdesk/app"
)

// signInHarness is the window on a desk with two operators: li (PIN 4321)
// and the supervisor wang (PIN 8765), in desk mode when desk is set.
type signInHarness struct {
	*harness
	operators       *app.Operators
	liBadge, wBadge string
	liPIN, wangPIN  string
}

func newSignInHarness(t *testing.T, desk bool) *signInHarness {
	t.Helper()
	h := &signInHarness{harness: newHarness(t), liPIN: "4321", wangPIN: "8765"}
	ctx := context.Background()
	h.operators = app.NewOperators(h.db, h.svc.Keys, h.clock.Now)
	li, err := h.operators.Add(ctx, "li", h.liPIN, false, "admin")
	if err != nil {
		t.Fatal(err)
	}
	wang, err := h.operators.Add(ctx, "wang", h.wangPIN, true, "admin")
	if err != nil {
		t.Fatal(err)
	}
	h.liBadge, _ = h.operators.Badge(li)
	h.wBadge, _ = h.operators.Badge(wang)
	h.win = fyne.CurrentApp().NewWindow("qrdesk")
	h.win.Resize(fyne.NewSize(1200, 800))
	h.ui.quiet() // the harness's first window, replaced by this one
	h.ui = openUI(t, fyne.CurrentApp(), h.win, h.svc, Options{Screen: "scan", Player: h.sound, TemplateDir: t.TempDir(), Operators: h.operators, Desk: desk})
	return h
}

// showsTabs reports whether the window shows the screens' tabs.
func (h *signInHarness) showsTabs() bool {
	found := false
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		if o == h.ui.tabs {
			found = true
		}
		if c, ok := o.(*fyne.Container); ok {
			for _, child := range c.Objects {
				walk(child)
			}
		}
	}
	fyne.DoAndWait(func() { walk(h.win.Content()) })
	return found
}

// typeInto types text and Enter into a field of the sign-in form.
func typeInto(e *escEntry, text string) {
	fyne.DoAndWait(func() {
		test.Type(e, text)
		e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	})
}

func (h *signInHarness) redeemedBy(t *testing.T, code string) string {
	t.Helper()
	var op string
	if err := h.db.SQL().QueryRow(`SELECT r.operator FROM redemptions r JOIN codes c ON c.id = r.code_id WHERE c.code = ?`, code).Scan(&op); err != nil {
		t.Fatalf("redemption of %s: %v", code, err)
	}
	return op
}

func TestDeskModeScanOnlyUntilSupervisor(t *testing.T) {
	h := newSignInHarness(t, true)
	codes := h.issue(t, 3)
	if h.showsTabs() {
		t.Fatal("desk mode shows the tabs")
	}
	// No way to the other screens: not by name, not by Ctrl+2 in the scan field.
	fyne.DoAndWait(func() { h.ui.show("codes") })
	keyboard{h.win}.ctrl(fyne.Key5)
	if cur := h.ui.current(); cur != "scan" || h.ui.tabs.SelectedIndex() != 0 || h.showsTabs() {
		t.Fatalf("a locked desk went to %s", cur)
	}

	// Nobody signed in: a label is not redeemed.
	h.scan(t, codes[0], fyne.KeyReturn, T("SIGN IN FIRST"))
	if v, _ := h.svc.Check(context.Background(), codes[0]); v.Outcome != app.OutcomeValid {
		t.Fatalf("scanned before sign-in: %s", v.Outcome)
	}

	// The picker signs in with the badge: scans work, the desk stays locked.
	h.scan(t, strings.ToLower(h.liBadge), fyne.KeyReturn, T("SIGNED IN"))
	if !strings.Contains(h.ui.env.signIn.who.Text, "li") || h.showsTabs() {
		t.Fatalf("after li's badge: %q, tabs %v", h.ui.env.signIn.who.Text, h.showsTabs())
	}
	h.scan(t, codes[0], fyne.KeyTab, T("REDEEMED"))
	if by := h.redeemedBy(t, codes[0]); by != "li" {
		t.Fatalf("redeemed by %q, want li", by)
	}

	// An operator removed while signed in is signed out at the next scan.
	if _, err := h.operators.Remove(context.Background(), "li", "admin"); err != nil {
		t.Fatal(err)
	}
	h.scan(t, codes[1], fyne.KeyReturn, T("SIGN IN FIRST"))
	waitFor(t, "li signed out", func() bool { _, ok := h.ui.env.signIn.current(); return !ok })
	if v, _ := h.svc.Check(context.Background(), codes[1]); v.Outcome != app.OutcomeValid {
		t.Fatalf("redeemed under a removed operator: %s", v.Outcome)
	}

	// A forged badge is refused and changes nothing.
	forged := h.wBadge[:len(h.wBadge)-2] + "ZZ"
	if forged == h.wBadge {
		forged = h.wBadge[:len(h.wBadge)-2] + "YY"
	}
	h.scan(t, forged, fyne.KeyReturn, T("BADGE REFUSED"))
	if h.showsTabs() {
		t.Fatal("a forged supervisor badge unlocked the desk")
	}

	// The supervisor's badge unlocks; signing out locks again.
	h.scan(t, h.wBadge, fyne.KeyReturn, T("SIGNED IN"))
	if !h.showsTabs() {
		t.Fatal("the supervisor's badge did not unlock the desk")
	}
	fyne.DoAndWait(func() { h.ui.show("codes") })
	if h.ui.current() != "codes" {
		t.Fatalf("unlocked, show(codes) went to %s", h.ui.current())
	}
	// A picker's badge takes over the desk and locks it (li was removed: add zhao).
	zhao, _ := h.operators.Add(context.Background(), "zhao", "2468", false, "admin")
	zhaoBadge, _ := h.operators.Badge(zhao)
	fyne.DoAndWait(func() { h.ui.show("scan") })
	h.scan(t, zhaoBadge, fyne.KeyReturn, T("SIGNED IN"))
	// The title already said SIGNED IN: wait for the lock itself.
	waitFor(t, "zhao's badge to lock the desk", func() bool { return !h.showsTabs() })
	if op, _ := h.ui.env.signIn.current(); op.Name != "zhao" {
		t.Fatalf("%q signed in, want zhao", op.Name)
	}
	h.scan(t, h.wBadge, fyne.KeyReturn, T("SIGNED IN"))
	waitFor(t, "wang's badge to unlock the desk", h.showsTabs)
	fyne.DoAndWait(func() { test.Tap(h.ui.env.signIn.signOut) })
	if h.showsTabs() || h.ui.current() != "scan" {
		t.Fatal("signing the supervisor out did not lock the desk")
	}

	// Unlock by name and PIN, from the keyboard (Ctrl+L in the scan field):
	// the form has the focus in its first field.
	keyboard{h.win}.ctrl(fyne.KeyL)
	f := h.ui.env.signIn.form
	if f == nil || h.win.Canvas().Focused() != f.name {
		t.Fatal("the sign-in form does not have the focus in its first field")
	}
	typeInto(f.name, "wang")
	if h.win.Canvas().Focused() != f.pin {
		t.Fatal("Enter in the name field did not move to the PIN")
	}
	typeInto(f.pin, "0000")
	waitFor(t, "the refusal", func() bool { return strings.Contains(f.message.Text, "name or PIN is wrong") })
	if h.showsTabs() {
		t.Fatal("a wrong PIN unlocked the desk")
	}
	// The retry goes into the PIN field, the name kept: it went into the
	// name field, so the PIN typed again landed after "wang".
	if focused := h.win.Canvas().Focused(); focused != f.pin || f.name.Text != "wang" || f.pin.Text != "" {
		t.Fatalf("after a wrong PIN the focus is in the name field (%v), name %q, PIN %q; want the PIN field, empty, name kept", focused == f.name, f.name.Text, f.pin.Text)
	}
	typeInto(f.pin, "0001")
	waitFor(t, "the second refusal", func() bool { return h.win.Canvas().Focused() == f.pin && f.pin.Text == "" })
	fyne.DoAndWait(func() { f.name.SetText("") })
	typeInto(f.name, "WANG")
	typeInto(f.pin, h.wangPIN)
	// Fyne's test driver runs the form's fyne.Do on the checking goroutine,
	// so wait for the unlock itself, not for the form to go.
	waitFor(t, "the supervisor's PIN to unlock the desk", h.showsTabs)
	if h.ui.env.signIn.form != nil {
		t.Fatal("the form is still up after the unlock")
	}
}

func TestSupervisorApprovesDisableAndSettings(t *testing.T) {
	h := newSignInHarness(t, false)
	codes := h.issue(t, 5)
	if !h.showsTabs() {
		t.Fatal("without --desk the window shows its screens")
	}
	h.scan(t, h.liBadge, fyne.KeyReturn, T("SIGNED IN"))
	s := h.ui.codes
	c, _ := app.Parse(codes[2])
	fyne.DoAndWait(func() {
		h.ui.show("codes")
		s.query.SetText(c.Random)
		s.search(0)
	})
	waitFor(t, "the search result", func() bool { return len(s.rows) == 1 })
	fyne.DoAndWait(func() {
		s.showDetail(s.rows[0])
		s.reason.SetText("label torn")
		test.Tap(s.disableBtn)
	})
	// li is not a supervisor: the window asks for one.
	waitFor(t, "the supervisor form", func() bool { return h.ui.env.signIn.form != nil })
	f := h.ui.env.signIn.form
	if v, _ := h.svc.Check(context.Background(), codes[2]); v.Outcome != app.OutcomeValid {
		t.Fatalf("disabled before a supervisor approved: %s", v.Outcome)
	}
	typeInto(f.name, "li")
	typeInto(f.pin, h.liPIN)
	waitFor(t, "li refused as supervisor", func() bool { return strings.Contains(f.message.Text, "li is not a supervisor") })
	if v, _ := h.svc.Check(context.Background(), codes[2]); v.Outcome != app.OutcomeValid {
		t.Fatalf("a picker approved a disable: %s", v.Outcome)
	}
	// The supervisor scans the badge into the form.
	typeInto(f.name, h.wBadge)
	waitFor(t, "disabled", func() bool { return s.current != nil && s.current.Status == app.StatusDisabled })
	var by string
	h.db.SQL().QueryRow(`SELECT operator FROM audit WHERE action = 'disable'`).Scan(&by)
	if by != "wang" {
		t.Fatalf("the disable is audited under %q, want wang", by)
	}
	if op, _ := h.ui.env.signIn.current(); op.Name != "li" {
		t.Fatalf("after the approval %q is signed in, want li still", op.Name)
	}

	// Settings: li asks, cancels, nothing is saved.
	st := h.ui.settings
	fyne.DoAndWait(func() {
		h.ui.show("settings")
		st.fields["daily"].setValue("250")
		st.saveAll()
	})
	waitFor(t, "the supervisor form", func() bool { return h.ui.env.signIn.form != nil })
	fyne.DoAndWait(func() { test.Tap(h.ui.env.signIn.form.cancel) })
	if set, _ := h.db.LoadSettings(context.Background()); set.Daily == 250 {
		t.Fatal("settings saved without a supervisor")
	}
	// A supervisor signed in saves without being asked.
	h.scan(t, h.wBadge, fyne.KeyReturn, T("SIGNED IN"))
	waitFor(t, "wang signed in", func() bool { op, _ := h.ui.env.signIn.current(); return op.Name == "wang" })
	fyne.DoAndWait(func() { st.saveAll() })
	waitFor(t, "saved", func() bool { return st.message.Text == T("Saved") })
	if set, _ := h.db.LoadSettings(context.Background()); set.Daily != 250 {
		t.Fatalf("daily %d after the supervisor saved", set.Daily)
	}
	var settingBy string
	h.db.SQL().QueryRow(`SELECT operator FROM audit WHERE action = 'setting' AND subject = 'daily'`).Scan(&settingBy)
	if settingBy != "wang" {
		t.Fatalf("the setting is audited under %q", settingBy)
	}
}

// TestSignInTextsInChinese checks the sign-in texts' own translation file
// is loaded beside the window's (a fresh process: Fyne reads LANG once).
func TestSignInTextsInChinese(t *testing.T) {
	if os.Getenv("QRDESK_PRINT_SIGNIN") != "" {
		loadTranslations()
		os.Stdout.WriteString(T("Scan") + "|" + T("Signed in: {{.Name}} (supervisor)", map[string]any{"Name": "王芳"}))
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSignInTextsInChinese$")
	cmd.Env = append(os.Environ(), "QRDESK_PRINT_SIGNIN=1", "LANG=zh_CN.UTF-8", "LC_ALL=zh_CN.UTF-8")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := "扫码|已登录：王芳（主管）"; string(out) != want {
		t.Fatalf("%q, want %q", out, want)
	}
}

// button finds a button by its text in the top overlay (a dialog).
func (h *signInHarness) dialogButton(t *testing.T, text string) *widget.Button {
	t.Helper()
	var found *widget.Button
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch w := o.(type) {
		case *widget.Button:
			if w.Text == text {
				found = w
			}
		case *keyButton:
			if w.Text == text {
				found = &w.Button
			}
		case *fyne.Container:
			for _, child := range w.Objects {
				walk(child)
			}
		case fyne.Widget:
			for _, child := range test.WidgetRenderer(w).Objects() {
				walk(child)
			}
		}
	}
	fyne.DoAndWait(func() {
		if top := h.win.Canvas().Overlays().Top(); top != nil {
			walk(top)
		}
	})
	if found == nil {
		t.Fatalf("no %q button in the dialog", text)
	}
	return found
}

func TestReprintNeedsSupervisor(t *testing.T) {
	h := newSignInHarness(t, false)
	h.scan(t, h.liBadge, fyne.KeyReturn, T("SIGNED IN"))
	s := h.ui.issue
	batch, _, err := h.svc.Issue(context.Background(), app.IssueRequest{Count: 2})
	if err != nil {
		t.Fatal(err)
	}
	// The batch was printed (the Issue screen reads that from the database).
	recs, err := h.svc.BatchCodes(context.Background(), batch.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.svc.Print(context.Background(), recs, app.PrintJob{Operator: "li"}, nil,
		func([]app.CodeRecord) (func() error, error) { return func() error { return nil }, nil }); err != nil {
		t.Fatal(err)
	}
	var reprints []bool
	fyne.DoAndWait(func() {
		h.ui.show("issue")
		s.selected = &batch
		s.confirmThen(func(reprint bool) { reprints = append(reprints, reprint) })
	})
	h.settle() // the batches are read again before the question
	fyne.DoAndWait(func() { s.reprint.sheet.SetText("1") })
	h.settle()
	fyne.DoAndWait(func() { test.Tap(h.dialogButton(t, T("Print again"))) })
	waitFor(t, "the supervisor form", func() bool { return h.ui.env.signIn.form != nil })
	if len(reprints) != 0 {
		t.Fatal("a picker reprinted without a supervisor")
	}
	f := h.ui.env.signIn.form
	typeInto(f.name, "wang")
	typeInto(f.pin, h.wangPIN)
	waitFor(t, "the reprint", func() bool { return len(reprints) == 1 })
	if !reprints[0] {
		t.Fatal("the approved print was not a reprint")
	}
}

func TestIssueAsksWhoIsWorking(t *testing.T) {
	h := newSignInHarness(t, false)
	s := h.ui.issue
	fyne.DoAndWait(func() {
		h.ui.show("issue")
		s.count.SetText("3")
		test.Tap(s.issueBtn)
	})
	waitFor(t, "the sign-in form", func() bool { return h.ui.env.signIn.form != nil })
	if bs, _ := h.db.Batches(context.Background(), 0, 1<<40); len(bs) != 0 {
		t.Fatal("issued while nobody was signed in")
	}
	typeInto(h.ui.env.signIn.form.name, h.liBadge)
	waitFor(t, "the batch", func() bool { return strings.Contains(s.status.Text, "Batch 1: 3 codes") })
	bs, _ := h.db.Batches(context.Background(), 0, 1<<40)
	if len(bs) != 1 || bs[0].Operator != "li" {
		t.Fatalf("batches %+v, want one issued by li", bs)
	}
	if op, _ := h.ui.env.signIn.current(); op.Name != "li" {
		t.Fatalf("%q signed in, want li", op.Name)
	}
}

func TestUndoNeedsSupervisor(t *testing.T) {
	h := newSignInHarness(t, false)
	codes := h.issue(t, 1)
	if _, err := h.svc.Redeem(context.Background(), codes[0], "li"); err != nil {
		t.Fatal(err)
	}
	h.scan(t, h.liBadge, fyne.KeyReturn, T("SIGNED IN"))
	s := codesDetail(t, h.harness, codes[0])
	fyne.DoAndWait(func() { s.runUndo(codes[0], "wrong parcel") })
	waitFor(t, "the supervisor form", func() bool { return h.ui.env.signIn.form != nil })
	if v, _ := h.svc.Check(context.Background(), codes[0]); v.Status != app.StatusUsed {
		t.Fatalf("undone before a supervisor approved: %s", v.Status)
	}
	typeInto(h.ui.env.signIn.form.name, h.wBadge)
	waitFor(t, "the label unused again", func() bool {
		v, _ := h.svc.Check(context.Background(), codes[0])
		return v.Status == app.StatusUnused
	})
	h.settle()
	var by string
	h.db.SQL().QueryRow(`SELECT operator FROM audit WHERE action = 'undo'`).Scan(&by)
	if by != "wang" {
		t.Fatalf("the undo is audited under %q, want wang", by)
	}
}

// TestReplaceNeedsSupervisor: a replace disables the label and issues a
// live one past the daily quantity, so a picker cannot do it alone, just
// as a picker cannot disable: the window asks for a supervisor, nothing
// changes until one approves, and the replace is audited under the
// supervisor.
func TestReplaceNeedsSupervisor(t *testing.T) {
	h := newSignInHarness(t, false)
	codes := h.issue(t, 1)
	h.scan(t, h.liBadge, fyne.KeyReturn, T("SIGNED IN"))
	s := codesDetail(t, h.harness, codes[0])
	fyne.DoAndWait(func() {
		s.reason.SetText("label torn")
		test.Tap(s.replaceBtn)
	})
	keyboard{h.win}.press(fyne.KeyReturn) // yes to "Replace label?"
	waitFor(t, "the supervisor form", func() bool { return h.ui.env.signIn.form != nil })
	if v, _ := h.svc.Check(context.Background(), codes[0]); v.Status != app.StatusUnused {
		t.Fatalf("replaced before a supervisor approved: the old label is %s", v.Status)
	}
	if bs := h.batches(t); len(bs) != 1 {
		t.Fatalf("%d batches before a supervisor approved, want 1 (no replacement yet)", len(bs))
	}
	f := h.ui.env.signIn.form
	typeInto(f.name, "li")
	typeInto(f.pin, h.liPIN)
	waitFor(t, "li refused as supervisor", func() bool { return strings.Contains(f.message.Text, "li is not a supervisor") })
	if v, _ := h.svc.Check(context.Background(), codes[0]); v.Status != app.StatusUnused {
		t.Fatalf("a picker approved a replace: the old label is %s", v.Status)
	}
	typeInto(f.name, h.wBadge)
	waitFor(t, "the old label disabled", func() bool {
		v, _ := h.svc.Check(context.Background(), codes[0])
		return v.Status == app.StatusDisabled
	})
	h.settle()
	var by string
	h.db.SQL().QueryRow(`SELECT operator FROM audit WHERE action = 'replace'`).Scan(&by)
	if by != "wang" {
		t.Fatalf("the replace is audited under %q, want wang", by)
	}
}

// TestSignInErrorIsASentence: a refused PIN is said as a sentence, with a
// capital letter, in the sign-in form.
func TestSignInErrorIsASentence(t *testing.T) {
	h := newSignInHarness(t, false)
	kb := keyboard{h.win}
	kb.ctrl(fyne.KeyL)
	f := h.formUp(t)
	kb.typeText("wang")
	kb.press(fyne.KeyTab)
	kb.typeText("0000")
	kb.press(fyne.KeyReturn)
	waitFor(t, "the refusal", func() bool { return f.message.Text != "" })
	if r := []rune(f.message.Text)[0]; !unicode.IsUpper(r) {
		t.Fatalf("the sign-in form says %q: want a sentence", f.message.Text)
	}
}

// The sign-in form's refusal keeps the name's own case: "li" stays "li".
func TestSignInErrorKeepsTheName(t *testing.T) {
	override = chineseTexts(t)
	defer func() { override = nil }()
	if got := T("Not signed in: {{.Why}}", map[string]any{"Why": "li was removed"}); got != "未登录：li was removed" {
		t.Fatalf("in Chinese: %q", got)
	}
}

// TestNoSignInBarWithoutOperators: a station with no operators shows no
// "Sign in…" bar; it appears once an operator is added.
func TestNoSignInBarWithoutOperators(t *testing.T) {
	h := newHarness(t)
	staff := app.NewOperators(h.db, h.svc.Keys, h.clock.Now)
	w := fyne.CurrentApp().NewWindow("qrdesk")
	h.ui.quiet()
	ui := openUI(t, fyne.CurrentApp(), w, h.svc, Options{Screen: "scan", Player: h.sound, TemplateDir: t.TempDir(), Operators: staff})
	s := ui.env.signIn
	waitFor(t, "the bar to hide", func() bool { return !s.bar.Visible() })
	if _, err := staff.Add(context.Background(), "li", "4321", false, "admin"); err != nil {
		t.Fatal(err)
	}
	s.refreshBar(context.Background()) // as the window's watch does every 3 s
	waitFor(t, "the bar to show", func() bool { return s.bar.Visible() })
}
