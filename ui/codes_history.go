package ui

import (
	"fmt"
	"slices"
	"strings"

	"qrdesk/app"
)

// historyLine is one entry of a label's history on the Codes screen: when,
// what (in the clerk's words, not the database's "just_scanned"), where,
// who and the detail.
func historyLine(ev app.Event) string {
	return strings.TrimSpace(fmt.Sprintf("%s  %s  %s  %s %s", app.FormatTime(ev.At), historyKind(ev.Kind), ev.Station, ev.Operator, ev.Detail))
}

// historyKind names what happened: a scan's verdict, or what was done to
// the label (the audit's actions). A kind a newer release wrote is shown
// with spaces for its underscores.
func historyKind(kind string) string {
	switch kind {
	case string(app.OutcomeRedeemed):
		return T("Redeemed")
	case string(app.OutcomeJustScanned):
		return T("Scanned twice")
	case "disable":
		return T("Disabled")
	case "enable":
		return T("Enabled")
	case "undo":
		return T("Redemption undone")
	case "replace":
		return T("Replaced")
	case "replacement":
		return T("Issued as a replacement")
	case "server_flag":
		return T("Note from the server")
	case "undo_refused":
		return T("Undo refused by the server")
	case "undo_accepted":
		return T("Undo held by the server again")
	}
	if o := app.Outcome(kind); slices.Contains(app.RefusalOutcomes, o) {
		return T("Refused: {{.Reason}}", map[string]any{"Reason": refusalName(o)})
	}
	return strings.ReplaceAll(kind, "_", " ")
}
