package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"

	"qrdesk/app"
)

func init() {
	register("gui", "open the window (the default with no command)", runGUI)
}

// runGUI opens the window. Whatever stops it first (a flag, a desk whose
// supervisors were all removed, a key file others can read, a database
// that will not open)
// is written to qrdesk.log beside the database and shown in a dialog
// (startFailure): the window program has no console to print it to.
func runGUI(ctx context.Context, env *Env, args []string) error {
	fs, c := newFlags(env, "gui", "")
	err := openGUI(ctx, env, fs, c, args)
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		startFailure(env, filepath.Dir(c.db), err)
	}
	return err
}

func openGUI(ctx context.Context, env *Env, fs *flag.FlagSet, c *common, args []string) error {
	screen := fs.String("screen", "", "open on this screen: scan, issue, codes, today or settings")
	desk := fs.Bool("desk", false, "desk mode: the Scan screen only, until a supervisor signs in with a badge or PIN")
	if err := parseNone(fs, args); err != nil {
		return err
	}
	if *desk && *screen != "" && *screen != "scan" {
		return usagef("--desk shows the Scan screen only: leave out --screen %s", *screen)
	}
	if *screen != "" && !slices.Contains(app.Screens, *screen) {
		return usagef("--screen %q is not a screen: use scan, issue, codes, today or settings", *screen)
	}
	if *desk {
		if err := deskHasSupervisor(ctx, env, c); err != nil {
			return err
		}
	}
	if env.GUI == nil {
		return errors.New("this build of qrdesk has no window; use the commands ('qrdesk help')")
	}
	return callGUI(ctx, env, GUIOptions{DB: c.db, KeyFile: c.keyFile, Screen: *screen, Desk: *desk})
}

// callGUI runs the window, turning a panic on its goroutine (the window's
// event loop runs on the caller's) into an error, so that it too reaches
// qrdesk.log, with its stack, and the dialog.
func callGUI(ctx context.Context, env *Env, opts GUIOptions) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &app.Error{Kind: app.KindInternal, Message: fmt.Sprintf("the window stopped unexpectedly (%v)", r),
				Err: fmt.Errorf("panic: %v\n%s", r, debug.Stack())}
		}
	}()
	return env.GUI(ctx, opts)
}

// deskHasSupervisor refuses desk mode on a desk nobody could unlock: one
// whose supervisors were all removed, saying how to add one
// (deskSetupError). A fresh desk, or one that never had a supervisor,
// opens: the window asks for the first supervisor (ui/firstsupervisor.go).
func deskHasSupervisor(ctx context.Context, env *Env, c *common) error {
	if _, err := os.Stat(c.db); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	s, err := open(ctx, env, c)
	if err != nil {
		return err
	}
	defer s.Close()
	sups, err := s.svc.Operators().Supervisors(ctx)
	if err != nil || sups.Current || !sups.Ever {
		return err
	}
	return &app.Error{Kind: app.KindInvalid, Message: (&deskSetupError{}).Error(), Err: &deskSetupError{}}
}
