package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"qrdesk/app"
)

func init() {
	register("settings", "show or change the station settings (changes are audited)", runSettings)
}

func runSettings(ctx context.Context, env *Env, args []string) error {
	fs, c := newFlags(env, "settings", "")
	// One flag per setting of app.SettingDefs; only flags given on the
	// command line are changed.
	flags := map[string]string{}
	for _, d := range app.SettingDefs {
		if d.Flag != "" {
			flags[d.Flag] = d.Key
			fs.String(d.Flag, "", settingUsage(d))
		}
	}
	operator := fs.String("operator", "", "who makes the change (for the audit log)")
	if err := parseNone(fs, args); err != nil {
		return err
	}
	changes := map[string]string{}
	fs.Visit(func(f *flag.Flag) {
		if key, ok := flags[f.Name]; ok {
			changes[key] = f.Value.String()
		}
	})
	markSetUp(changes)
	s, err := open(ctx, env, c)
	if err != nil {
		return err
	}
	defer s.Close()
	var set app.Settings
	if len(changes) > 0 {
		var by string
		if by, err = s.operator(ctx, *operator); err != nil {
			return err
		}
		set, err = s.svc.UpdateSettings(ctx, changes, by)
		// Name the flag the administrator typed, not the setting's label.
		var se *app.SettingError
		if errors.As(err, &se) {
			if d, ok := app.SettingDefFor(se.Key); ok && d.Flag != "" {
				return usagef("--%s %q is not allowed: %s", d.Flag, se.Value, se.Rule)
			}
		}
	} else {
		set, err = s.svc.Settings(ctx)
	}
	if err != nil {
		return err
	}
	for _, r := range set.Repaired {
		fmt.Fprintf(env.Stderr, "warning: %s\n", r)
	}
	values := set.Values()
	shown := map[string]string{}
	for _, k := range app.SettingKeys {
		shown[k] = values[k]
	}
	return s.output(shown, func(w io.Writer) {
		for _, k := range app.SettingKeys {
			fmt.Fprintf(w, "%-14s %s\n", k, values[k])
		}
	})
}

// settingUsage is a setting's line in 'qrdesk settings -h': its help and
// what values it takes.
func settingUsage(d app.SettingDef) string {
	switch d.Kind {
	case app.SettingBool:
		return d.Help + " (true|false)"
	case app.SettingChoice:
		return d.Help + " (" + strings.Join(d.Choices, "|") + ")"
	}
	return d.Help
}

// markSetUp marks the desk set up when the command answers one of the
// window's first-run set-up questions (prefix, station, …): an
// administrator who set the desk up here is not asked again at the
// window's first start. Other settings (sound) leave it as it was, and
// --configured given on the command line has the last word.
func markSetUp(changes map[string]string) {
	if _, given := changes["configured"]; given {
		return
	}
	for key := range changes {
		if d, ok := app.SettingDefFor(key); ok && d.Setup {
			changes["configured"] = "true"
			return
		}
	}
}
