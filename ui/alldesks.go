package ui

import (
	"bytes"
	"fmt"

	"qrdesk/app"
)

// allDesksText is every desk's figures of the day as this desk knows them
// at its last sync, apart from this desk's own (Today, the close of the
// day).
func allDesksText(a *app.AllDesks) string {
	if a == nil {
		return T("All desks: not known until this desk syncs with the server")
	}
	var b bytes.Buffer
	b.WriteString(T("All desks, as known at the last sync ({{.At}})", map[string]any{"At": app.FormatTime(a.SyncedAt)}))
	b.WriteString("\n")
	fmt.Fprintf(&b, "%s: %d · %s: %d · %s: %d · %s: %d\n", T("Issued"), a.Issued, T("Redeemed"), a.Redeemed, T("Undone"), a.Undone, T("Conflicts"), a.Conflicts)
	for _, d := range a.Desks {
		fmt.Fprintf(&b, "  %s — %s: %d · %s: %d\n", d.Station, T("Issued"), d.Issued, T("Redeemed"), d.Redeemed)
	}
	return b.String()
}
