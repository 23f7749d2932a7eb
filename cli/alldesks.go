package cli

import (
	"fmt"
	"io"
	"time"

	"qrdesk/app"
)

// writeAllDesks prints every desk's figures of the day, as this desk
// knows them at its last sync, apart from its own.
func writeAllDesks(w io.Writer, a *app.AllDesks, loc *time.Location) {
	if a == nil {
		fmt.Fprintln(w, "all desks: not known (this desk has not synced)")
		return
	}
	fmt.Fprintf(w, "all desks, as known at the last sync (%s):\n", time.Unix(a.SyncedAt, 0).In(loc).Format("2006-01-02 15:04"))
	fmt.Fprintf(w, "  issued    %d\n  redeemed  %d\n  undone    %d\n  conflicts %d\n", a.Issued, a.Redeemed, a.Undone, a.Conflicts)
	for _, d := range a.Desks {
		fmt.Fprintf(w, "  %-20s issued %d, redeemed %d\n", d.Station, d.Issued, d.Redeemed)
	}
}
