package cli

import (
	"context"
	"errors"
	"slices"

	"qrdesk/app"
)

func init() {
	register("gui", "open the window (the default with no command)", runGUI)
}

func runGUI(ctx context.Context, env *Env, args []string) error {
	fs, c := newFlags(env, "gui", "")
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
	return env.GUI(ctx, GUIOptions{DB: c.db, KeyFile: c.keyFile, Screen: *screen, Desk: *desk})
}

// deskHasSupervisor refuses desk mode on a desk nobody could unlock.
func deskHasSupervisor(ctx context.Context, env *Env, c *common) error {
	s, err := open(ctx, env, c)
	if err != nil {
		return err
	}
	defer s.Close()
	ops, err := s.svc.Operators().List(ctx, false)
	if err != nil {
		return err
	}
	for _, op := range ops {
		if op.Supervisor {
			return nil
		}
	}
	return app.Errorf(app.KindInvalid, "desk mode needs a supervisor to unlock it: add one with 'qrdesk operators add NAME --supervisor', and print the badges")
}
