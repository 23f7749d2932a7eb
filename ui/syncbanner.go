package ui

import (
	"context"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"qrdesk/app"
)

// The window syncs every syncEvery; after failures it waits longer, up to
// maxSyncBackoff.
const (
	syncEvery      = 5 * time.Second
	maxSyncBackoff = time.Minute
)

// syncBanner shows the link to the central server on the Scan screen:
// online or offline, the last successful sync, events waiting, and a
// warning when the other desks' data here is older than app.StaleAfter.
type syncBanner struct {
	env   *env
	label *widget.Label
	card  *widget.Label
}

func newSyncBanner(e *env) *syncBanner {
	b := &syncBanner{env: e, label: widget.NewLabel("")}
	b.label.TextStyle = fyne.TextStyle{Bold: true}
	if e.svc.Remote == nil {
		b.label.Hide()
	}
	return b
}

// run syncs every syncEvery until ctx ends (the window closes).
func (b *syncBanner) run(ctx context.Context) {
	if b.env.svc.Remote == nil {
		return
	}
	wait := syncEvery
	for {
		st, err := b.env.svc.Sync(ctx)
		if err != nil {
			st, _ = b.env.svc.Store.(app.SyncStore).SyncState(ctx)
			wait = min(wait*2, maxSyncBackoff) // a server in trouble is not hammered
		} else {
			wait = syncEvery
		}
		text := b.text(st, err)
		fyne.Do(func() { b.label.SetText(text) })
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

func (b *syncBanner) text(st app.SyncStatus, err error) string {
	state := T("Online")
	if err != nil {
		state = T("OFFLINE: scans are decided here and uploaded later")
	}
	last := T("never")
	if st.LastOK != 0 {
		last = time.Unix(st.LastOK, 0).Format("15:04:05")
	}
	text := T("{{.State}} · last sync {{.Last}} · {{.Waiting}} waiting", map[string]any{"State": state, "Last": last, "Waiting": st.Waiting})
	if st.LastOK == 0 || b.env.now().Sub(time.Unix(st.LastOK, 0)) > app.StaleAfter {
		text += " · " + T("WARNING: other desks' data is more than 5 minutes old")
	}
	return text
}
