package ui

import (
	"context"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"qrdesk/app"
	"qrdesk/protocol"
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
	env      *env
	label    *widget.Label
	conflict *conflictNotice // told after every sync
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
	go b.env.svc.Follow(ctx) // other desks' changes within a second while online
	if b.conflict != nil {
		b.conflict.baseline(ctx)
	}
	wait := syncEvery
	for {
		if err := b.once(ctx); err != nil {
			wait = min(wait*2, maxSyncBackoff) // a server in trouble is not hammered
		} else {
			wait = syncEvery
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// once syncs, shows the outcome in the banner and, when the sync brought a
// conflict, the conflict bar.
func (b *syncBanner) once(ctx context.Context) error {
	st, err := b.env.svc.Sync(ctx)
	if err != nil {
		st, _ = b.env.svc.SyncState(ctx)
		st.StoppedBadges, _ = b.env.svc.StoppedBadges(ctx) // kept in the database: said offline too
	}
	if set, serr := b.env.svc.Settings(ctx); serr == nil && set.StationID != b.env.current().StationID {
		// The sync took the letter the server enrolled this desk with
		// (SyncStatus.LetterWas): the screens show it.
		b.env.reloadSettings()
	}
	text := b.text(st, err)
	fyne.Do(func() { b.label.SetText(text) })
	if b.conflict != nil {
		b.conflict.check(ctx)
	}
	return err
}

func (b *syncBanner) text(st app.SyncStatus, err error) string {
	state := T("Online")
	var refusal *app.ServerRefusal
	switch {
	case app.DeskRefusal(err) != nil:
		// An answer, not an outage: this desk redeems nothing until the
		// administrator acts.
		refusal = app.DeskRefusal(err)
		state = T("REFUSED BY THE SERVER: no scan is accepted here") + " (" + deskRefusalText(refusal) + ")"
	case app.ServerFailed(err) != nil:
		// An answer, but not a decision: the desk decides alone as when
		// offline, and says what the server said, for the administrator.
		state = T("SERVER ERROR: scans are decided here and uploaded later") + " (" + app.ServerFailed(err).Error() + ")"
	case err != nil && app.IsTransient(err):
		state = T("OFFLINE: scans are decided here and uploaded later")
	case err != nil:
		state = T("Sync problem") + ": " + app.ErrorMessage(err)
	}
	last := T("never")
	if st.LastOK != 0 {
		last = time.Unix(st.LastOK, 0).Format("15:04:05")
	}
	text := T("{{.State}} · last sync {{.Last}} · {{.Waiting}} waiting", map[string]any{"State": state, "Last": last, "Waiting": st.Waiting})
	if st.LastOK == 0 || b.env.now().Sub(time.Unix(st.LastOK, 0)) > app.StaleAfter {
		text += " · " + T("WARNING: other desks' data is more than 5 minutes old")
	}
	if w := clockWarning(st.Clock); w != "" {
		text += " · " + w
	}
	if w := stoppedBadgesText(st.StoppedBadges); w != "" {
		text += " · " + w
	}
	return text
}

// stoppedBadgesText says which badges printed here stopped signing in with
// a sync (app.StoppedBadge, kept until a new badge is saved or the note
// dismissed), and what a supervisor does about it.
func stoppedBadgesText(stopped []app.StoppedBadge) string {
	var renew, removed []string
	for _, b := range stopped {
		if b.Removed {
			removed = append(removed, b.Name)
		} else {
			renew = append(renew, b.Name)
		}
	}
	var parts []string
	if len(renew) > 0 {
		parts = append(parts, T("The badges of {{.Names}} no longer sign in: a supervisor saves new ones on the Staff screen", map[string]any{"Names": strings.Join(renew, ", ")}))
	}
	if len(removed) > 0 {
		parts = append(parts, T("Removed from the staff list: {{.Names}}; their badges no longer sign in (a supervisor dismisses this on the Staff screen)", map[string]any{"Names": strings.Join(removed, ", ")}))
	}
	return strings.Join(parts, " · ")
}

// deskRefusalText says in the clerk's language why the server refuses this
// desk and who can fix it.
func deskRefusalText(r *app.ServerRefusal) string {
	switch r.Code {
	case app.RefusedRevoked:
		return T("this desk was revoked: ask the administrator for a new token")
	case app.RefusedTokenRenewed:
		return T("this desk's token was renewed: give this desk the new token (ask the administrator)")
	case app.RefusedWrongRing:
		return T("this desk's key file is not the deployment's: ask the administrator")
	case protocol.RefusedDeskTooOld:
		return T("this desk's qrdesk is older than the server: upgrade qrdesk on this desk")
	}
	return T("the server does not know this desk's token: ask the administrator")
}
