package ui

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"

	"qrdesk/app"
)

// signIn is who works at the window: the operator signed in by badge or by
// name and PIN, shown in a bar above every screen. Scans, redemptions and
// audit rows name them. Once the desk has operators ('qrdesk operators
// add'), a label is not redeemed until someone is signed in; a desk without
// operators works as before, under the operator setting.
type signIn struct {
	env   *env
	staff *app.Operators

	mu       sync.Mutex
	op       *app.Operator // nil: nobody
	since    time.Time     // when op signed in (on env.now)
	approved *app.Operator // a supervisor's approval of one action (see env.supervisor)

	who     *widget.Label
	signIn  *keyButton
	signOut *keyButton
	bar     fyne.CanvasObject
	form    *signInForm // the form showing (one at a time), nil when none

	// onChange is told after every sign-in and sign-out (desk mode locks
	// and unlocks on it).
	onChange func(op *app.Operator)

	// unlockFor, when not 0, is how long a supervisor stays signed in
	// (deskUnlockFor, in desk mode).
	unlockFor time.Duration

	// keepBar shows the bar on a desk without operators too (desk mode).
	keepBar bool
}

// deskUnlockFor is how long a supervisor's sign-in unlocks a desk-mode
// window: then the window signs them out and locks (watch). A supervisor
// who unlocked the desk and walked away used to leave every screen open to
// the pickers until someone signed out. Signing in again (the badge) starts
// it again; a picker's sign-in has no limit (they work there all shift).
const deskUnlockFor = 15 * time.Minute

func newSignIn(e *env, staff *app.Operators) *signIn {
	s := &signIn{env: e, staff: staff}
	s.who = widget.NewLabel("")
	s.who.TextStyle = fyne.TextStyle{Bold: true}
	s.signIn = newKeyButton(T("Sign in…"), func() {
		s.ask(T("Sign in"), T("Scan your badge, or type your name and PIN"), false, func(op app.Operator) { s.set(&op) })
	})
	s.signOut = newKeyButton(T("Sign out"), func() { s.set(nil) })
	s.bar = container.NewHBox(s.who, s.signIn, s.signOut)
	s.show()
	e.background(func() { s.refreshBar(context.Background()) })
	return s
}

// refreshBar, off the UI goroutine, hides the sign-in bar on a station
// that has no operators (nobody could sign in: "Sign in…" only puzzled the
// clerk) and shows it once one is added ('qrdesk operators add'); the
// screens listening (env.onStaff) are told too.
func (s *signIn) refreshBar(ctx context.Context) {
	has, err := s.staff.Any(ctx)
	if err != nil {
		return
	}
	s.env.mu.Lock()
	listeners := s.env.onStaff
	s.env.mu.Unlock()
	fyne.Do(func() {
		if _, in := s.current(); has || in || s.keepBar {
			s.bar.Show()
		} else {
			s.bar.Hide()
		}
		for _, fn := range listeners {
			fn(has)
		}
	})
}

// current is the signed-in operator.
func (s *signIn) current() (app.Operator, bool) {
	if s == nil {
		return app.Operator{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.op == nil {
		return app.Operator{}, false
	}
	return *s.op, true
}

// set signs op in (nil: out) and tells the bar and the window.
func (s *signIn) set(op *app.Operator) {
	s.mu.Lock()
	s.op = op
	if op != nil && s.env.now != nil {
		s.since = s.env.now()
	}
	s.mu.Unlock()
	s.show()
	if s.onChange != nil {
		s.onChange(op)
	}
}

func (s *signIn) show() {
	op, ok := s.current()
	switch {
	case !ok:
		s.who.SetText(T("Nobody is signed in"))
		s.signOut.Disable()
	case op.Supervisor:
		s.who.SetText(T("Signed in: {{.Name}} (supervisor)", map[string]any{"Name": op.Name}))
		s.signOut.Enable()
	default:
		s.who.SetText(T("Signed in: {{.Name}}", map[string]any{"Name": op.Name}))
		s.signOut.Enable()
	}
}

// needed reports, off the UI goroutine, whether a scan must wait for a
// sign-in: nobody is signed in and the desk has operators, or the one
// signed in no longer counts (removed with 'qrdesk operators remove', or
// their badge renewed): they are signed out.
func (s *signIn) needed(ctx context.Context) bool {
	if s == nil {
		return false
	}
	if op, ok := s.current(); ok {
		if _, err := s.staff.Recheck(ctx, op, false); !app.NoLongerCurrent(err) {
			return false // a database error is reported by the scan itself
		}
		fyne.Do(func() { s.signOutIf(op) })
		return true
	}
	has, err := s.staff.Any(ctx)
	return err == nil && has
}

// signInCheckEvery is how often the window re-reads the signed-in
// operator (watch): a supervisor removed or whose badge was renewed from
// the command line stops unlocking a desk within it.
const signInCheckEvery = 3 * time.Second

// watch re-checks the signed-in operator every signInCheckEvery until ctx
// ends (the window closes).
func (s *signIn) watch(ctx context.Context, scan *scanScreen) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(signInCheckEvery):
		}
		s.refreshBar(ctx)
		s.recheck(ctx, scan)
		s.endUnlock(scan)
	}
}

// endUnlock, off the UI goroutine, signs out a supervisor whose sign-in
// has unlocked a desk-mode window for deskUnlockFor, and says so on the
// Scan screen: the desk locks again.
func (s *signIn) endUnlock(scan *scanScreen) {
	op, ok := s.current()
	if !ok || !op.Supervisor || s.unlockFor == 0 || s.env.now == nil {
		return
	}
	s.mu.Lock()
	since := s.since
	s.mu.Unlock()
	if s.env.now().Sub(since) < s.unlockFor {
		return
	}
	fyne.Do(func() {
		if s.signOutIf(op) {
			scan.paint(colorInactive, T("SIGNED OUT"), T("{{.Name}} was signed out {{.Minutes}} minutes after unlocking the desk: it is locked again. A supervisor's badge unlocks it.",
				map[string]any{"Name": op.Name, "Minutes": int(s.unlockFor / time.Minute)}))
		}
	})
}

// recheck, off the UI goroutine, signs out the signed-in operator if they
// no longer count (removed, their badge renewed since they signed in) and
// says why on the Scan screen; a desk-mode window locks with it. A database
// error changes nothing (the next check or scan tries again).
func (s *signIn) recheck(ctx context.Context, scan *scanScreen) {
	op, ok := s.current()
	if !ok {
		return
	}
	_, err := s.staff.Recheck(ctx, op, false)
	if !app.NoLongerCurrent(err) {
		return
	}
	fyne.Do(func() {
		if s.signOutIf(op) {
			scan.paint(colorRefused, T("SIGNED OUT"), notCurrentText(op, err))
			s.env.beep(false)
		}
	})
}

// signOutIf signs op out (on the UI goroutine) if they are still the one
// signed in, with the same badge and PIN; it reports whether it did.
func (s *signIn) signOutIf(op app.Operator) bool {
	cur, ok := s.current()
	if !ok || cur.ID != op.ID || cur.BadgeVersion != op.BadgeVersion || cur.PINHash != op.PINHash {
		return false
	}
	s.set(nil)
	return true
}

// notCurrentText says, in the window's language, why op no longer counts
// (app.Operators.Recheck's refusal err).
func notCurrentText(op app.Operator, err error) string {
	name := map[string]any{"Name": op.Name}
	switch {
	case errors.Is(err, app.ErrOperatorRemoved):
		return T("{{.Name}} was removed from this desk: signed out, and approves nothing more", name)
	case errors.Is(err, app.ErrBadgeReplaced):
		return T("The badge of {{.Name}} was renewed: signed out; sign in again with the new badge or the PIN", name)
	case errors.Is(err, app.ErrPINChanged):
		return T("The PIN of {{.Name}} was changed: signed out; sign in again with the badge or the new PIN", name)
	case errors.Is(err, app.ErrNotSupervisor):
		return T("{{.Name}} is not a supervisor: a supervisor must approve this", name)
	}
	return app.ErrorMessage(err)
}

// badgeRefusedText says, in the window's language and a picker's words,
// why a badge was refused and what to do: a badge that only a new one
// replaces sends the picker to a supervisor, never to a command line.
// Other reasons are the service's, starting with a capital letter.
func badgeRefusedText(err error) string {
	switch {
	case errors.Is(err, app.ErrBadgeBeforeJoin):
		return T("This badge is from before this desk joined the staff list and no longer works: ask a supervisor for a new badge")
	case errors.Is(err, app.ErrOldBadge):
		return T("This badge was printed by an older qrdesk and no longer works: ask a supervisor for a new badge")
	}
	return sentence(app.ErrorMessage(err))
}

// sentence is msg with its first letter in upper case (the service's
// messages start in lower case, as Go errors do).
func sentence(msg string) string {
	r, n := utf8.DecodeRuneInString(msg)
	if n == 0 || !unicode.IsLower(r) {
		return msg
	}
	return string(unicode.ToUpper(r)) + msg[n:]
}

// badgeScanned signs in the operator of a badge scanned on the Scan screen
// (off the UI goroutine) and paints the result there.
func (s *signIn) badgeScanned(scan *scanScreen, raw string) {
	go func() {
		op, err := s.staff.SignInBadge(context.Background(), raw)
		fyne.Do(func() {
			if err != nil {
				scan.paint(colorRefused, T("BADGE REFUSED"), badgeRefusedText(err))
				s.env.beep(false)
				return
			}
			s.set(&op)
			scan.paint(colorInactive, T("SIGNED IN"), op.Name)
		})
	}()
}

// supervisor returns the name of the supervisor an action runs under: the
// signed-in one, or one who just approved it. Otherwise it asks for a
// supervisor's badge or PIN, returns false, and calls retry once one has
// approved; the retry then gets that supervisor, once. A desk without
// operators runs everything under the operator setting, as before.
func (e *env) supervisor(what string, retry func()) (string, bool) {
	return e.supervisorOr(what, retry, nil)
}

// supervisorOr is supervisor, and calls cancelled when the approval form
// closes without an approval (Cancel, Esc, or the screen was left).
func (e *env) supervisorOr(what string, retry, cancelled func()) (string, bool) {
	s := e.signIn
	if s == nil {
		return e.operator(), true
	}
	s.mu.Lock()
	approved := s.approved
	s.approved = nil
	s.mu.Unlock()
	if approved != nil {
		return approved.Name, true
	}
	// The supervisor signed in approves only while still current: one
	// small indexed read, since operators may be removed or their badges
	// renewed from the command line while the window runs.
	var refused string
	if op, ok := s.current(); ok && op.Supervisor {
		cur, err := s.staff.Recheck(context.Background(), op, true)
		if err == nil {
			return cur.Name, true
		}
		refused = notCurrentText(op, err)
		if app.NoLongerCurrent(err) {
			s.signOutIf(op) // a desk-mode window locks
		}
	}
	// One small indexed read: operators may be added from the command line
	// while the window runs.
	if has, err := s.staff.Any(context.Background()); err == nil && !has {
		return e.operator(), true
	}
	defer func() {
		if refused != "" && s.form != nil {
			s.form.message.SetText(refused)
		}
	}()
	s.askOr(T("A supervisor must approve"), what, true, func(op app.Operator) {
		s.mu.Lock()
		s.approved = &op
		s.mu.Unlock()
		retry()
		s.mu.Lock()
		s.approved = nil // unused by the retry: it must not approve something else later
		s.mu.Unlock()
	}, cancelled)
	return "", false
}

// whoIsIn reports whether an action may go on under e.operator(): someone
// is signed in, or the desk has no operators. Otherwise it asks who is
// working, signs them in, and calls retry.
func (e *env) whoIsIn(what string, retry func()) bool {
	s := e.signIn
	if s == nil {
		return true
	}
	if _, ok := s.current(); ok {
		return true
	}
	if has, err := s.staff.Any(context.Background()); err == nil && !has {
		return true
	}
	s.ask(T("Sign in"), what, false, func(op app.Operator) {
		s.set(&op)
		retry()
	})
	return false
}

// signInForm asks for a badge or a name and PIN. The first field takes
// either: a scanner types a badge there and ends it with Enter.
type signInForm struct {
	name, pin  *escEntry
	why        *widget.Label // what the sign-in or approval is for
	message    *widget.Label
	ok, cancel *keyButton
	dialog     dialog.Dialog
	done       bool   // signed in: closing is not a cancel
	cancelled  func() // told when the form closes without a sign-in
}

// ask shows the form; done runs with the operator who signed in (a
// supervisor when supervisor is set). A refusal stays in the form.
func (s *signIn) ask(title, why string, supervisor bool, done func(app.Operator)) {
	s.askOr(title, why, supervisor, done, nil)
}

// closeForm closes the form showing, if any, as Cancel does: a sign-in or
// an approval belongs to the action and the screen it was asked on.
func (s *signIn) closeForm() {
	if s == nil || s.form == nil {
		return
	}
	s.form.dialog.Hide()
}

// askOr is ask, and calls cancelled (if not nil) when the form closes
// without a sign-in: Cancel, Esc, or the screen left (closeForm).
func (s *signIn) askOr(title, why string, supervisor bool, done func(app.Operator), cancelled func()) {
	f := &signInForm{name: newEscEntry(), pin: newEscPasswordEntry(), message: widget.NewLabel(""), cancelled: cancelled}
	f.name.SetPlaceHolder(T("Name, or scan the badge"))
	f.pin.SetPlaceHolder(T("PIN"))
	f.message.Wrapping = fyne.TextWrapWord
	submit := func() {
		name, pin := strings.TrimSpace(f.name.Text), f.pin.Text
		if name == "" {
			f.message.SetText(T("Type your name, or scan your badge"))
			return
		}
		f.ok.Disable()
		go func() {
			var op app.Operator
			var err error
			if raw := app.ApplyScannerMap(name, s.env.current().ScannerMap); app.IsBadge(raw) {
				op, err = s.staff.SignInBadge(context.Background(), raw)
			} else {
				op, err = s.staff.SignInPIN(context.Background(), name, pin)
			}
			fyne.Do(func() {
				f.ok.Enable()
				f.pin.SetText("")
				retry := f.name // where the next try is typed
				switch {
				case err != nil:
					if app.IsBadge(name) {
						f.name.SetText("")
					} else {
						retry = f.pin // a wrong PIN: the name stays, the PIN is typed again
					}
					// The service's reason is lower case and may start with a
					// name ("li was removed…"): said after a capital, not changed.
					f.message.SetText(T("Not signed in: {{.Why}}", map[string]any{"Why": app.ErrorMessage(err)}))
				case supervisor && !op.Supervisor:
					f.name.SetText("")
					f.message.SetText(T("{{.Name}} is not a supervisor: a supervisor must approve this", map[string]any{"Name": op.Name}))
				default:
					f.done = true
					f.dialog.Hide()
					s.form = nil
					done(op)
					return
				}
				s.env.win.Canvas().Focus(retry)
			})
		}()
	}
	f.name.OnSubmitted = func(text string) {
		if app.IsBadge(text) {
			submit()
			return
		}
		s.env.win.Canvas().Focus(f.pin)
	}
	f.pin.OnSubmitted = func(string) { submit() }
	f.ok = newKeyButton(T("Sign in"), submit)
	if supervisor {
		f.ok.SetText(T("Approve"))
	}
	f.ok.Importance = widget.HighImportance
	f.cancel = newKeyButton(T("Cancel"), func() { f.dialog.Hide() })
	f.why = widget.NewLabel(why)
	f.why.Wrapping = fyne.TextWrapWord
	form := widget.NewForm(widget.NewFormItem(T("Name or badge"), f.name), widget.NewFormItem(T("PIN"), f.pin))
	content := container.NewVBox(f.why, form, f.message, container.NewHBox(f.cancel, f.ok))
	f.dialog = dialog.NewCustomWithoutButtons(title, content, s.env.win)
	f.name.onEsc, f.pin.onEsc = f.dialog.Hide, f.dialog.Hide
	f.dialog.SetOnClosed(func() {
		if s.form == f {
			s.form = nil
		}
		if !f.done && f.cancelled != nil {
			f.cancelled()
		}
	})
	f.dialog.Resize(fyne.NewSize(460, 0))
	s.form = f
	f.dialog.Show()
	s.env.win.Canvas().Focus(f.name)
}

// signInShortcut (Ctrl+L) opens the sign-in form from the keyboard, from
// any field and on a locked desk too: it is a main menu item (see
// screenMenu), so it comes before the focused field.
var signInShortcut = &desktop.CustomShortcut{KeyName: fyne.KeyL, Modifier: fyne.KeyModifierShortcutDefault}

// addSignInShortcut puts the sign-in item beside the window's screens.
func (ui *mainUI) addSignInShortcut() { ui.setMenu() }

// setMenu is the main menu: the screens (not on a locked desk: it has no
// way to them) and, with operators, the sign-in item.
func (ui *mainUI) setMenu() {
	s := ui.env.signIn
	if s == nil {
		return // the screens' menu of addShortcuts stays
	}
	var menus []*fyne.Menu
	if !ui.locked {
		menus = append(menus, ui.screenMenu().Items[0]) // the screens (Help goes last)
	}
	signIn := fyne.NewMenuItem(T("Sign in…"), func() {
		if s.form == nil {
			s.signIn.OnTapped()
		}
	})
	signIn.Shortcut = signInShortcut
	operator := fyne.NewMenu(T("Operator"), signIn)
	if ui.locked {
		// The first menu gets Fyne's Quit; a locked desk's is its own, which
		// asks a supervisor first (desk.go).
		quit := fyne.NewMenuItem(T("Quit"), ui.quit)
		quit.IsQuit = true
		operator.Items = append(operator.Items, fyne.NewMenuItemSeparator(), quit)
	}
	menus = append(menus, operator, ui.helpMenu())
	ui.env.win.SetMainMenu(fyne.NewMainMenu(menus...))
}
