package ui

import (
	"time"

	"qrdesk/app"
)

// clockWarning says in the clerk's language that this desk's clock is off
// the server's by more than app.ClockTolerance ("" when it is not): offline
// scans are decided on it, so the clerk should have it fixed.
func clockWarning(c app.ClockOffset) string {
	if !c.Off() {
		return ""
	}
	off := durationText(c.Size())
	if c.Ahead() {
		return T("WARNING: this desk's clock is {{.Off}} ahead of the server: fix the clock", map[string]any{"Off": off})
	}
	return T("WARNING: this desk's clock is {{.Off}} behind the server: fix the clock", map[string]any{"Off": off})
}

// durationText says d in its largest whole unit, translated (app.DurationUnit
// says at least 2 of any unit but seconds).
func durationText(d time.Duration) string {
	n, unit := app.DurationUnit(d)
	data := map[string]any{"N": n}
	switch unit {
	case "day":
		return T("{{.N}} days", data)
	case "hour":
		return T("{{.N}} hours", data)
	case "minute":
		return T("{{.N}} minutes", data)
	}
	return T("{{.N}} seconds", data)
}
