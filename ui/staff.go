package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"qrdesk/app"
	"qrdesk/printing"
)

// staffScreen is what 'qrdesk operators' does, for a supervisor signed in
// at the window: the desk's operators with their PIN lockouts, adding a
// picker or a supervisor, a new PIN for a forgotten one, lifting a PIN
// lockout, renewing a lost badge, removing someone, saving a badge, and
// the badges a sync stopped. Everything goes through app.Operators, so on
// the deployment's staff list each change is a staff event for the server
// as at the command line. Without a supervisor signed in it shows why not
// and a way to sign in; on a desk that never had a supervisor, the form
// for the first one.
type staffScreen struct {
	env   *env
	staff *app.Operators
	loads latest
	mode  string // what the screen shows: staffManage, staffGate, staffFirst or staffNone

	// staffManage: the list and what a supervisor does with it.
	list      *widget.List
	rows      []staffRow
	selected  int // index in rows; -1: none
	setPIN    *keyButton
	unlock    *keyButton
	renew     *keyButton
	remove    *keyButton
	badge     *keyButton
	name      *widget.Entry
	pin       *widget.Entry
	again     *widget.Entry
	super     *widget.Check
	add       *keyButton
	stopped   *fyne.Container // the badges a sync stopped, each with its buttons
	shared    *widget.Label   // said on the deployment's staff list
	message   *widget.Label
	manage    fyne.CanvasObject
	gateText  *widget.Label
	gate      fyne.CanvasObject
	first     *firstSupervisorForm
	content   *fyne.Container
	stoppedOf []app.StoppedBadge

	// The new PIN's form while it is up (askPIN).
	pinDialog           *dialog.FormDialog
	newPIN, newPINAgain *widget.Entry
}

const (
	staffManage = "manage" // a supervisor is signed in
	staffGate   = "gate"   // nobody, or a picker: sign in as a supervisor
	staffFirst  = "first"  // the desk never had a supervisor: add the first
	staffNone   = "none"   // every supervisor was removed: how to add one
)

// staffRow is one operator with their PIN lockout as it is now.
type staffRow struct {
	op   app.Operator
	lock app.PINLock
}

func newStaffScreen(e *env) *staffScreen {
	s := &staffScreen{env: e, staff: e.signIn.staff, selected: -1, message: widget.NewLabel(""), shared: widget.NewLabel("")}
	s.message.Wrapping = fyne.TextWrapWord
	s.shared.Wrapping = fyne.TextWrapWord
	s.shared.Importance = widget.LowImportance
	s.list = widget.NewList(func() int { return len(s.rows) },
		func() fyne.CanvasObject { return widget.NewLabel("operator") },
		func(i widget.ListItemID, o fyne.CanvasObject) {
			if i < len(s.rows) {
				o.(*widget.Label).SetText(staffRowText(s.rows[i]))
			}
		})
	s.list.OnSelected = func(i widget.ListItemID) { s.selected = i; s.enableActions() }
	s.list.OnUnselected = func(widget.ListItemID) { s.selected = -1; s.enableActions() }
	s.setPIN = newKeyButton(T("Set a new PIN…"), s.askPIN)
	s.unlock = newKeyButton(T("Lift the PIN lockout"), s.liftLock)
	s.renew = newKeyButton(T("Renew the badge…"), s.askRenew)
	s.remove = newKeyButton(T("Remove…"), s.askRemove)
	s.remove.Importance = widget.DangerImportance
	s.badge = newKeyButton(T("Save the badge"), func() { s.saveBadge(s.chosen()) })
	actions := container.NewGridWithColumns(3, s.setPIN, s.unlock, s.renew, s.badge, s.remove)

	s.name = widget.NewEntry()
	s.name.SetPlaceHolder(T("Name, as the desk knows them"))
	s.pin, s.again = widget.NewPasswordEntry(), widget.NewPasswordEntry()
	s.pin.SetPlaceHolder(T("{{.Min}} to {{.Max}} digits", map[string]any{"Min": app.MinPINDigits, "Max": app.MaxPINDigits}))
	s.again.SetPlaceHolder(T("The same PIN again"))
	s.super = widget.NewCheck(T("Supervisor"), nil)
	s.add = newKeyButton(T("Add"), s.addOperator)
	s.add.Importance = widget.HighImportance
	s.name.OnSubmitted = func(string) { e.win.Canvas().Focus(s.pin) }
	s.pin.OnSubmitted = func(string) { e.win.Canvas().Focus(s.again) }
	s.again.OnSubmitted = func(string) { s.addOperator() }
	guardBadges(e, s.name)
	addForm := widget.NewForm(widget.NewFormItem(T("Name"), s.name), widget.NewFormItem(T("PIN"), s.pin),
		widget.NewFormItem(T("PIN again"), s.again), widget.NewFormItem("", s.super))
	s.stopped = container.NewVBox()
	// The list and what is done with the chosen operator on the left; adding
	// one and the stopped badges on the right, which scrolls: the screen
	// fits 1024 × 600 with a long list and several notes.
	top := container.NewVBox(heading(T("The desk's operators")), s.shared)
	left := container.NewBorder(top, container.NewVBox(actions, s.message), nil, nil, s.list)
	right := container.NewVScroll(container.NewVBox(heading(T("Add an operator")), addForm, container.NewHBox(s.add), s.stopped))
	split := container.NewHSplit(left, right)
	split.Offset = 0.55
	s.manage = split

	s.gateText = widget.NewLabel("")
	s.gateText.Wrapping = fyne.TextWrapWord
	signIn := newKeyButton(T("Sign in…"), func() {
		e.signIn.ask(T("Sign in"), T("Staff is for supervisors: scan a supervisor's badge, or type their name and PIN"), true,
			func(op app.Operator) { e.signIn.set(&op) })
	})
	s.gate = container.NewVBox(s.gateText, container.NewHBox(signIn))
	s.first = newFirstSupervisorForm(e, func(op app.Operator) {
		s.message.SetText(T("{{.Name}} is this desk's supervisor and is signed in: save their badge (Save the badge) and print it at 100 %.", map[string]any{"Name": op.Name}))
		s.refreshThen(func() { s.choose(op.Name) })
	})
	s.content = container.NewStack()
	s.show(staffGate)
	return s
}

// staffRowText is one operator's line: name, role, badge, when added and
// a PIN lockout.
func staffRowText(r staffRow) string {
	role := T("picker")
	if r.op.Supervisor {
		role = T("supervisor")
	}
	line := T("{{.Name}} · {{.Role}} · badge {{.Badge}} · added {{.Added}}",
		map[string]any{"Name": r.op.Name, "Role": role, "Badge": r.op.BadgeVersion, "Added": app.FormatTime(r.op.CreatedAt)})
	if r.lock.Locked() {
		line += " · " + T("PIN locked for {{.Wait}}", map[string]any{"Wait": waitText(r.lock.Wait())})
	}
	return line
}

// show puts one of the screen's panes up.
func (s *staffScreen) show(mode string) {
	s.mode = mode
	switch mode {
	case staffManage:
		s.content.Objects = []fyne.CanvasObject{s.manage}
	case staffFirst:
		s.content.Objects = []fyne.CanvasObject{container.NewVScroll(container.NewVBox(s.first.content, s.message))}
	default:
		s.content.Objects = []fyne.CanvasObject{s.gate}
	}
	s.content.Refresh()
}

// refresh reloads the operators off the UI goroutine.
func (s *staffScreen) refresh() { s.refreshThen(nil) }

// staffState is what the screen shows, read off the UI goroutine.
type staffState struct {
	supervisors app.Supervisors
	rows        []staffRow
	shared      bool
	stopped     []app.StoppedBadge
}

func (s *staffScreen) load(ctx context.Context) (staffState, error) {
	var st staffState
	var err error
	if st.supervisors, err = s.staff.Supervisors(ctx); err != nil {
		return st, err
	}
	ops, err := s.staff.List(ctx, false)
	if err != nil {
		return st, err
	}
	for _, op := range ops {
		lock, err := s.staff.PINLock(ctx, op.Name)
		if err != nil {
			return st, err
		}
		st.rows = append(st.rows, staffRow{op: op, lock: lock})
	}
	if st.shared, err = s.staff.Shared(ctx); err != nil {
		return st, err
	}
	st.stopped, err = s.env.svc.StoppedBadges(ctx)
	return st, err
}

// refreshThen reloads, then runs then (on the UI goroutine) if not nil.
func (s *staffScreen) refreshThen(then func()) {
	n := s.loads.next()
	s.env.background(func() {
		st, err := s.load(context.Background())
		onUI(func() {
			if !s.loads.is(n) {
				return
			}
			if err != nil {
				s.message.SetText(app.ErrorMessage(err))
				return
			}
			s.showState(st)
			if then != nil {
				then()
			}
		})
	})
}

func (s *staffScreen) showState(st staffState) {
	op, in := s.env.signIn.current()
	switch {
	case !st.supervisors.Ever:
		s.show(staffFirst)
		return
	case in && op.Supervisor:
	case !st.supervisors.Current:
		s.gateText.SetText(T("This desk has no supervisor any more (every one was removed), and only a supervisor manages the staff here. Add one in a command prompt: qrdesk operators add \"NAME\" --supervisor") +
			map[bool]string{true: "\n" + T("or on the server's Operators page (the deployment's staff list)"), false: ""}[st.shared])
		s.show(staffNone)
		return
	default:
		s.gateText.SetText(T("Staff is for supervisors: sign in with a supervisor's badge, or their name and PIN."))
		s.show(staffGate)
		return
	}
	chosen := ""
	if c := s.chosen(); c != nil {
		chosen = c.op.Name
	}
	s.rows = st.rows
	s.list.UnselectAll()
	s.selected = -1
	s.list.Refresh()
	s.choose(chosen)
	s.shared.Hide() // an empty label still takes a line
	if st.shared {
		s.shared.SetText(T("This desk signs in the deployment's staff list: a change made here reaches the server at this desk's next sync, and every desk at theirs. A PIN lockout is this desk's own."))
		s.shared.Show()
	}
	s.showStopped(st.stopped)
	s.enableActions()
	s.show(staffManage)
}

// choose selects the operator called name, if listed.
func (s *staffScreen) choose(name string) {
	for i, r := range s.rows {
		if strings.EqualFold(r.op.Name, name) {
			s.list.Select(i)
			return
		}
	}
}

// chosen is the selected row, nil when none.
func (s *staffScreen) chosen() *staffRow {
	if s.selected < 0 || s.selected >= len(s.rows) {
		return nil
	}
	return &s.rows[s.selected]
}

func (s *staffScreen) enableActions() {
	r := s.chosen()
	for _, b := range []*keyButton{s.setPIN, s.renew, s.remove, s.badge} {
		if r == nil {
			b.Disable()
		} else {
			b.Enable()
		}
	}
	if r != nil && r.lock.Locked() {
		s.unlock.Enable()
	} else {
		s.unlock.Disable()
	}
}

// showStopped lists the badges printed here that a sync stopped, each
// with a new badge to save or, for a removed operator, a dismissal.
func (s *staffScreen) showStopped(stopped []app.StoppedBadge) {
	s.stoppedOf = stopped
	s.stopped.Objects = nil
	for _, b := range stopped {
		text := T("The badge of {{.Name}} printed here no longer signs in since a sync: the staff list holds a newer one. Save the new badge.", map[string]any{"Name": b.Name})
		if b.Removed {
			text = T("{{.Name}} was removed from the staff list: their badge printed here no longer signs in.", map[string]any{"Name": b.Name})
		}
		label := widget.NewLabel(text)
		label.Wrapping = fyne.TextWrapWord
		buttons := container.NewHBox()
		if !b.Removed {
			name := b.Name
			buttons.Add(newKeyButton(T("Save the badge"), func() {
				for _, r := range s.rows {
					if strings.EqualFold(r.op.Name, name) {
						s.saveBadge(&r)
					}
				}
			}))
		}
		name := b.Name
		buttons.Add(newKeyButton(T("Dismiss"), func() { s.dismiss(name) }))
		s.stopped.Add(container.NewBorder(nil, nil, nil, buttons, label))
	}
	s.stopped.Refresh()
}

// act runs change, a supervisor's, off the UI goroutine, says done (or
// why not) and reloads. what names the action for the approval form: the
// supervisor signed in is checked again first (removed or renewed since).
func (s *staffScreen) act(what string, retry func(), change func(by string) error, done string) {
	by, ok := s.env.supervisor(what, retry)
	if !ok {
		return
	}
	s.env.background(func() {
		err := change(by)
		onUI(func() {
			if err != nil {
				s.message.SetText(T("Not done: {{.Why}}", map[string]any{"Why": staffProblem(err)}))
				return
			}
			s.message.SetText(done)
			s.refresh()
		})
	})
}

// staffProblem says in the clerk's language why a change of the staff
// was refused, where the refusal is one of the name rules.
func staffProblem(err error) string {
	var like *app.LooksLikeError
	var invisible *app.InvisibleInNameError
	var unprintable *app.UnprintableError
	switch {
	case errors.As(err, &unprintable) && unprintable.What == "name":
		return T("the name holds {{.Char}}, a character the badge cannot print: type it without that character",
			map[string]any{"Char": printing.DescribeRune(unprintable.Char)})
	case errors.As(err, &like):
		return T("{{.Name}} reads the same as {{.Existing}}, a current operator: pick a name that reads differently (add a surname or an initial), or remove {{.Existing}} first", map[string]any{"Name": like.Name, "Existing": like.Existing})
	case errors.As(err, &invisible):
		return T("the name holds an invisible character ({{.Char}}), so it reads like another name: type it again without it", map[string]any{"Char": fmt.Sprintf("%U", invisible.Char)})
	}
	return app.ErrorMessage(err)
}

func (s *staffScreen) addOperator() {
	name, pin := strings.TrimSpace(s.name.Text), s.pin.Text
	if pin != s.again.Text {
		s.message.SetText(T("The two PINs differ: type the PIN again in both fields"))
		s.pin.SetText("")
		s.again.SetText("")
		s.env.win.Canvas().Focus(s.pin)
		return
	}
	supervisor := s.super.Checked
	role := T("picker")
	if supervisor {
		role = T("supervisor")
	}
	s.act(T("Add an operator"), s.addOperator, func(by string) error {
		_, err := s.staff.Add(context.Background(), name, pin, supervisor, by)
		if err == nil {
			onUI(func() {
				s.name.SetText("")
				s.pin.SetText("")
				s.again.SetText("")
				s.super.SetChecked(false)
			})
		}
		return err
	}, T("{{.Name}} was added as a {{.Role}}: save their badge (Save the badge) and print it at 100 %.", map[string]any{"Name": name, "Role": role}))
}

// askPIN asks for the chosen operator's new PIN, twice.
func (s *staffScreen) askPIN() {
	r := s.chosen()
	if r == nil {
		return
	}
	name := r.op.Name
	pin, again := widget.NewPasswordEntry(), widget.NewPasswordEntry()
	s.newPIN, s.newPINAgain = pin, again
	form := []*widget.FormItem{widget.NewFormItem(T("New PIN"), pin), widget.NewFormItem(T("PIN again"), again)}
	var d *dialog.FormDialog
	apply := func() {
		if pin.Text != again.Text {
			s.message.SetText(T("The two PINs differ: nothing was changed; set the PIN again"))
			return
		}
		p := pin.Text
		s.act(T("Set a new PIN for {{.Name}}", map[string]any{"Name": name}), nil, func(by string) error {
			_, err := s.staff.SetPIN(context.Background(), name, p, by)
			return err
		}, T("{{.Name}} has a new PIN; the old one no longer works, and a PIN lockout of theirs ended.", map[string]any{"Name": name}))
	}
	d = dialog.NewForm(T("New PIN for {{.Name}}", map[string]any{"Name": name}), T("Set the PIN"), T("Cancel"), form, func(ok bool) {
		if ok {
			apply()
		}
	}, s.env.win)
	pin.OnSubmitted = func(string) { s.env.win.Canvas().Focus(again) }
	again.OnSubmitted = func(string) { d.Submit() }
	s.pinDialog = d
	d.Resize(fyne.NewSize(420, 0))
	d.Show()
	s.env.win.Canvas().Focus(pin)
}

func (s *staffScreen) liftLock() {
	r := s.chosen()
	if r == nil {
		return
	}
	name := r.op.Name
	s.act(T("Lift the PIN lockout of {{.Name}}", map[string]any{"Name": name}), s.liftLock, func(by string) error {
		_, err := s.staff.LiftPINLock(context.Background(), name, by)
		return err
	}, T("{{.Name}} may sign in with their PIN again.", map[string]any{"Name": name}))
}

func (s *staffScreen) askRenew() {
	r := s.chosen()
	if r == nil {
		return
	}
	name, data := r.op.Name, map[string]any{"Name": r.op.Name}
	s.confirmAct(T("Renew the badge of {{.Name}}?", data), T("Their badge stops working at once (a lost or stolen badge). Then save the new one and print it."),
		T("Renew the badge"), T("Renew the badge of {{.Name}}", data), T("The old badge of {{.Name}} no longer works: save the new one (Save the badge) and print it.", data),
		func(by string) error {
			_, err := s.staff.RenewBadge(context.Background(), name, by)
			return err
		})
}

func (s *staffScreen) askRemove() {
	r := s.chosen()
	if r == nil {
		return
	}
	name, data := r.op.Name, map[string]any{"Name": r.op.Name}
	s.confirmAct(T("Remove {{.Name}}?", data), T("Their badge and PIN stop working; the scans they made keep their name."),
		T("Remove"), T("Remove {{.Name}}", data), T("{{.Name}} was removed: their badge and PIN no longer work.", data),
		func(by string) error {
			_, err := s.staff.Remove(context.Background(), name, by)
			return err
		})
}

// confirmAct asks question (Enter yes, Esc no), then acts as act does.
func (s *staffScreen) confirmAct(question, why, yes, what, done string, change func(by string) error) {
	s.env.confirm(question, why, yes, func(ok bool) {
		if ok {
			s.act(what, nil, change, done)
		}
	})
}

// saveBadge saves r's badge in the save folder, once a supervisor approves.
func (s *staffScreen) saveBadge(r *staffRow) {
	if r == nil {
		return
	}
	op := r.op
	if _, ok := s.env.supervisor(T("Save the badge of {{.Name}}", map[string]any{"Name": op.Name}), func() { s.saveBadge(&staffRow{op: op}) }); !ok {
		return
	}
	s.env.background(func() {
		badges, err := badgesOf(s.staff, op)
		path := ""
		if err == nil {
			path, err = s.env.saveBadges(s.staff, badges, badgeFileName(op.Name))
		}
		onUI(func() {
			s.message.SetText(badgesSavedText(path, err))
			if err == nil {
				s.refresh() // a stopped badge's note ends
			}
		})
	})
}

func (s *staffScreen) dismiss(name string) {
	s.act(T("Dismiss the stopped badge of {{.Name}}", map[string]any{"Name": name}), func() { s.dismiss(name) }, func(by string) error {
		return s.staff.DismissStoppedBadge(context.Background(), name, by)
	}, T("The note on the badge of {{.Name}} is dismissed.", map[string]any{"Name": name}))
}

// waitText is a wait in whole minutes, rounded up as the sign-in form
// says it: "1 minute", "4 minutes".
func waitText(d time.Duration) string {
	m := int((d + time.Minute - 1) / time.Minute)
	if m <= 1 {
		return T("1 minute")
	}
	return T("{{.N}} minutes", map[string]any{"N": m})
}

// heading is a bold line over a part of a screen.
func heading(text string) *widget.Label {
	return widget.NewLabelWithStyle(text, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
}
