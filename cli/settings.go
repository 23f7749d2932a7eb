package cli

import (
	"context"
	"flag"
	"fmt"
	"io"

	"qrdesk/app"
)

func init() {
	register("settings", "show or change the station settings (changes are audited)", runSettings)
}

func runSettings(ctx context.Context, env *Env, args []string) error {
	fs, c := newFlags(env, "settings", "")
	// Only flags given on the command line are changed.
	flags := map[string]string{
		"prefix": "prefix", "daily": "daily", "date-serial": "date_serial", "serial-digits": "serial_digits",
		"station-id": "station_id", "station-name": "station_name", "expires": "expires",
		"template": "template", "label-title": "label_title", "qr-ec": "qr_ec", "offset-x": "offset_x", "offset-y": "offset_y",
		"printer": "printer", "sound": "sound", "start-screen": "start_screen", "default-operator": "operator",
		"configured": "configured", "undo-window": "undo_window",
	}
	help := map[string]string{
		"prefix":           "letters printed first in every code (0–6, A–Z)",
		"daily":            "default number of codes in a day's batch",
		"date-serial":      "print the label date, station id and daily serial (true|false)",
		"serial-digits":    "digits of the daily serial (3–8)",
		"station-id":       "one letter A–Z, different for every station",
		"station-name":     "name shown in logs and 'already used at …'",
		"expires":          "default expiry: never, eod (end of the label's day) or a duration (90m, 72h, 7d)",
		"template":         "label template ('qrdesk templates' lists them)",
		"label-title":      "title printed on every label, e.g. 提货码 (up to 30 characters)",
		"qr-ec":            "QR error correction: L, M (default), Q or H",
		"offset-x":         "printer calibration: move every label right by MM (negative: left)",
		"offset-y":         "printer calibration: move every label down by MM (negative: up)",
		"printer":          "default printer: a CUPS queue, or HOST:PORT of a raw ZPL printer",
		"sound":            "beep on each scan in the window (true|false)",
		"start-screen":     "screen the window opens on: scan, issue, codes, today or settings",
		"default-operator": "name of the clerk at this station",
		"configured":       "true skips the window's first-run set-up (stations set up by script)",
		"undo-window":      "how long after a redemption a supervisor may undo it (1m–24h, default 5m)",
	}
	for f := range flags {
		fs.String(f, "", help[f])
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
	s, err := open(ctx, env, c)
	if err != nil {
		return err
	}
	defer s.Close()
	var set app.Settings
	if len(changes) > 0 {
		set, err = s.svc.UpdateSettings(ctx, changes, operatorName(env, *operator))
	} else {
		set, err = s.db.LoadSettings(ctx)
	}
	if err != nil {
		return err
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
