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
	if err := parseNone(fs, args); err != nil {
		return err
	}
	if *screen != "" && !slices.Contains(app.Screens, *screen) {
		return usagef("--screen %q is not a screen: use scan, issue, codes, today or settings", *screen)
	}
	if env.GUI == nil {
		return errors.New("this build of qrdesk has no window; use the commands ('qrdesk help')")
	}
	return env.GUI(ctx, GUIOptions{DB: c.db, KeyFile: c.keyFile, Screen: *screen})
}
