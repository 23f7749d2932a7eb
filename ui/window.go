package ui

import (
	"context"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"qrdesk/app"
	"qrdesk/assets"
	"qrdesk/printing"
)

// Options choose how the window opens.
type Options struct {
	Screen      string         // scan, issue, codes, today or settings; "" for the start-screen setting
	TemplateDir string         // the clerk's own label templates
	Player      Player         // scan sounds; nil for silence
	Operators   *app.Operators // operators who sign in; nil: the operator setting names who works
	Desk        bool           // desk mode: the Scan screen only, until a supervisor signs in (desk.go)
	// Version is what About shows: release, commit, protocol and schema
	// (cli.Versions).
	Version string
}

// mainUI is the window: one tab per screen.
type mainUI struct {
	env      *env
	tabs     *container.AppTabs
	scan     *scanScreen
	issue    *issueScreen
	codes    *codesScreen
	today    *todayScreen
	settings *settingsScreen
	staff    *staffScreen           // nil when the window has no operators (staff.go)
	first    *firstSupervisorDialog // the first supervisor's form last shown (desk.go)
	screens  []string
	desk     bool // desk mode (desk.go)
	locked   bool // desk mode and no supervisor signed in: the Scan screen only
	hasStaff bool // the desk has operators (signIn.refreshBar tells)
	version  string
	about    dialog.Dialog // the About box last opened (about.go)
}

// defaultWindow is the window's size on first start: it fits a 1366 × 768
// screen under its title bar and above a taskbar (1200 × 800 did not: the
// bottom of every screen was off the screen), and every screen fits
// 1024 × 600 anyway.
var defaultWindow = fyne.NewSize(1200, 660)

// firstWindowSize is the window's size on first start: defaultWindow, no
// larger than the room the screen has for it (0 × 0: not known).
func firstWindowSize(room fyne.Size) fyne.Size {
	size := defaultWindow
	if room.Width > 0 {
		size.Width = min(size.Width, room.Width)
	}
	if room.Height > 0 {
		size.Height = min(size.Height, room.Height)
	}
	return size
}

const (
	prefLastScreen = "last_screen"
	prefWidth      = "window_width"
	prefHeight     = "window_height"
)

// Run opens the window on a and blocks until it is closed.
func Run(a fyne.App, svc *app.Service, opts Options) error {
	loadTranslations()
	a.Settings().SetTheme(newTheme())
	a.SetIcon(fyne.NewStaticResource("icon.png", assets.Icon))
	w := newWindow(a, opts)
	ui, err := newMainUI(a, w, svc, opts)
	if err != nil {
		return err
	}
	p := a.Preferences()
	first := firstWindowSize(screenRoom())
	w.Resize(fyne.NewSize(float32(p.FloatWithFallback(prefWidth, float64(first.Width))), float32(p.FloatWithFallback(prefHeight, float64(first.Height)))))
	w.SetOnClosed(func() {
		if opts.Desk { // full screen: not the size to open the window at
			return
		}
		size := w.Canvas().Size()
		p.SetFloat(prefWidth, float64(size.Width))
		p.SetFloat(prefHeight, float64(size.Height))
	})
	w.SetMaster()
	ui.start()
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	go ui.scan.banner.run(ctx)
	if ui.env.signIn != nil {
		go ui.env.signIn.watch(ctx, ui.scan)
	}
	w.ShowAndRun()
	return nil
}

// newWindow makes the window: "qrdesk", or in desk mode "qrdesk pickup
// desk" (as its Start-menu entry says, so the two windows of a PC are told
// apart in the taskbar) opened full screen: a pickup desk's screen is the
// desk's, and a 1024 × 600 one has no room for a window's title bar.
func newWindow(a fyne.App, opts Options) fyne.Window {
	if !opts.Desk {
		return a.NewWindow("qrdesk")
	}
	w := a.NewWindow(T("qrdesk pickup desk"))
	w.SetFullScreen(true)
	return w
}

func newMainUI(a fyne.App, w fyne.Window, svc *app.Service, opts Options) (*mainUI, error) {
	e := &env{svc: svc, app: a, win: w, player: opts.Player, templateDir: opts.TemplateDir, now: svc.Now}
	if e.player == nil {
		e.player = silent{}
	}
	if err := e.reloadSettings(); err != nil { // no screen listens yet
		return nil, err
	}
	if opts.Operators != nil {
		if opts.Operators.Unprintable == nil { // a name prints on its badge
			opts.Operators.Unprintable = printing.Unprintable
		}
		e.signIn = newSignIn(e, opts.Operators)
	}
	ui := &mainUI{env: e, screens: slices.Clone(app.Screens), version: opts.Version}
	ui.scan = newScanScreen(e)
	ui.issue = newIssueScreen(e)
	ui.codes = newCodesScreen(e)
	ui.today = newTodayScreen(e)
	ui.settings = newSettingsScreen(e)
	ui.tabs = container.NewAppTabs(
		container.NewTabItem(T("Scan"), ui.scan.content),
		container.NewTabItem(T("Issue & print"), ui.issue.content),
		container.NewTabItem(T("Codes"), ui.codes.content),
		container.NewTabItem(T("Today"), ui.today.content),
		container.NewTabItem(T("Settings"), ui.settings.content),
	)
	if e.signIn != nil { // the operators are managed where they sign in
		ui.staff = newStaffScreen(e)
		ui.screens = append(ui.screens, "staff")
		ui.tabs.Append(container.NewTabItem(T("Staff"), ui.staff.content))
	}
	ui.tabs.OnSelected = func(*container.TabItem) { ui.selected() }
	guardBadges(e, ui.textFields()...) // a badge scanned into a field signs in, never stays there
	if e.signIn != nil {
		e.signIn.onChange = ui.signedIn
		e.mu.Lock()
		e.onStaff = append(e.onStaff, func(has bool) { ui.hasStaff = has; ui.askBadge() })
		e.mu.Unlock()
		e.background(func() { e.signIn.refreshBar(context.Background()) })
	}
	ui.desk, ui.locked = opts.Desk, opts.Desk
	if ui.desk && e.signIn != nil {
		e.signIn.unlockFor = deskUnlockFor // a supervisor's unlock ends by itself
		e.signIn.keepBar = true            // Sign in… adds the first supervisor on a fresh desk
		ui.firstSupervisorOnSignIn()
	}
	ui.askBadge()
	if ui.desk {
		w.SetCloseIntercept(ui.quit)
	}
	ui.layout()
	ui.grabTyping()
	ui.addShortcuts()
	ui.addSignInShortcut() // Ctrl+L (signin.go)
	set := e.current()
	for _, fn := range e.onSaved {
		fn(set)
	}
	// The window opens on --screen, else on the start-screen setting (the
	// last screen used does not override the station's choice).
	screen := opts.Screen
	if screen == "" {
		screen = set.StartScreen
	}
	ui.show(screen)
	return ui, nil
}

// start runs after the window exists: on a pickup desk that never had a
// supervisor, the first one (desk.go); the first-run set-up if needed.
func (ui *mainUI) start() {
	if ui.desk && ui.env.signIn != nil {
		ui.askFirstSupervisorAtStart()
	}
	ui.setUp()
}

// setUp shows the first-run set-up on a desk not set up yet.
func (ui *mainUI) setUp() {
	if !ui.env.current().Configured && !ui.locked { // the set-up changes settings: not from a locked desk
		newSetupForm(ui.env).show(func() { ui.show(ui.current()) })
	}
}

// show selects a screen by name. Leaving a screen closes the sign-in or
// approval form asked for there: an approval belongs to one action, and
// must not float over another screen and catch its typing.
func (ui *mainUI) show(name string) {
	i := slices.Index(ui.screens, name)
	if i < 0 || ui.locked { // a locked desk shows the Scan screen only
		i = 0
	}
	if i != ui.tabs.SelectedIndex() {
		ui.env.signIn.closeForm()
	}
	ui.tabs.SelectIndex(i)
	ui.selected()
}

func (ui *mainUI) current() string {
	if ui.locked {
		return "scan"
	}
	return ui.screens[ui.tabs.SelectedIndex()]
}

// selected refreshes the screen that just came up and remembers it.
func (ui *mainUI) selected() {
	name := ui.current()
	ui.env.app.Preferences().SetString(prefLastScreen, name)
	ui.focusScreen()
	switch name {
	case "issue":
		ui.issue.refresh()
	case "codes":
		ui.codes.search(ui.codes.page)
	case "today":
		ui.today.refresh()
		ui.scan.conflict.acknowledge() // Today lists the conflicts
	case "staff":
		ui.staff.refresh()
	}
}

// grabTyping sends keystrokes that reach no field to the screen in view
// (keys.go), so a scan is never lost because the focus was elsewhere.
func (ui *mainUI) grabTyping() {
	c := ui.env.win.Canvas()
	c.SetOnTypedRune(ui.routeRune)
	c.SetOnTypedKey(ui.routeKey)
}

// addShortcuts: Ctrl+1 … Ctrl+5 open the screens, from any field.
func (ui *mainUI) addShortcuts() {
	ui.env.win.SetMainMenu(ui.screenMenu())
}

// textFields are the screens' text fields (the sign-in form reads badges
// itself; the reprint form guards its own).
func (ui *mainUI) textFields() []*widget.Entry {
	c, is := ui.codes, ui.issue
	out := []*widget.Entry{c.query, c.date, c.batch, c.reason, is.count, is.date, is.typ, is.ref, &is.expir.Entry, is.start}
	for _, key := range ui.settings.order {
		out = append(out, ui.settings.fields[key].entries()...)
	}
	return out
}
