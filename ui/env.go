package ui

import (
	"context"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"

	"qrdesk/app"
	"qrdesk/printing"
)

// env is what every screen shares: the service, the window and the
// station's settings.
type env struct {
	svc         *app.Service
	app         fyne.App
	win         fyne.Window
	player      Player
	templateDir string
	saveDir     string // where Save PDF and Export CSV write; "" for ~/Documents/qrdesk
	now         func() time.Time

	mu       sync.Mutex
	settings app.Settings
	onSaved  []func(app.Settings) // screens that show settings
	onStaff  []func(has bool)     // screens that change once the station has operators (signIn.refreshBar)

	signIn *signIn // who is signed in; nil when the window has no operators (see signin.go)

	jobs sync.WaitGroup // background work of the screens (see background)

	// dialogKeys answers Enter and Esc typed while a dialog that asked
	// for them is up (see confirmKeys); nil otherwise.
	dialogKeys func(*fyne.KeyEvent)
}

func (e *env) canvas() fyne.Canvas {
	if e.win == nil {
		return nil
	}
	return e.win.Canvas()
}

// beep plays the scan sound unless the station turned sound off.
func (e *env) beep(accepted bool) {
	if e.current().Sound {
		e.player.Play(accepted)
	}
}

func (e *env) current() app.Settings {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.settings
}

func (e *env) operator() string {
	if op, ok := e.signIn.current(); ok {
		return op.Name
	}
	if op := e.current().Operator; op != "" {
		return op
	}
	return "clerk"
}

// listPrinters lists the printers a job can go to (the CUPS queues, or the
// Windows printers); tests replace it.
var listPrinters = printing.Printers

// reloadSettings reads the settings (off the UI goroutine) and tells the
// screens.
func (e *env) reloadSettings() error {
	set, err := e.svc.Settings(context.Background())
	if err != nil {
		return err
	}
	e.mu.Lock()
	e.settings = set
	listeners := e.onSaved
	e.mu.Unlock()
	for _, fn := range listeners {
		onUI(func() { fn(set) })
	}
	return nil
}

// showError tells the clerk what went wrong (never on the Scan screen,
// which shows errors in its result panel).
func (e *env) showError(err error) {
	if e.win == nil {
		return
	}
	d := dialog.NewError(errorText(err), e.win)
	d.SetOnClosed(func() { e.dialogKeys = nil })
	e.dialogKeys = func(k *fyne.KeyEvent) { // Enter or Esc closes it
		if k.Name == fyne.KeyReturn || k.Name == fyne.KeyEnter || k.Name == fyne.KeyEscape {
			d.Hide()
		}
	}
	d.Show()
}

type userError string

func (u userError) Error() string { return string(u) }

func errorText(err error) error { return userError(app.ErrorMessage(err)) }

// latest numbers background loads so a slow, older result never replaces a
// newer one (e.g. two searches typed quickly).
type latest struct {
	mu sync.Mutex
	n  int
}

func (l *latest) next() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n++
	return l.n
}

func (l *latest) is(n int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return n == l.n
}

// background runs fn off the UI goroutine and counts it, so a test can wait
// until the screens are quiet. fn hands its results to the widgets through
// onUI.
func (e *env) background(fn func()) {
	e.jobs.Add(1)
	go func() {
		defer e.jobs.Done()
		fn()
	}()
}
