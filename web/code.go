package web

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"qrdesk/app"
	"qrdesk/central"
)

// The Code page: one label's whole history across desks. The server holds
// no key ring, so it cannot check a label's signature: for a label it does
// not hold it says what the label's shape tells (which desk's letter, which
// day) and when that desk last synced, and that a desk's scan tells a
// genuine label from a forged one.

type codeData struct {
	Query   string
	History *central.CodeHistory
	// NotHeld explains a label of a qrdesk shape the server does not hold.
	NotHeld []string
}

func (d *Dashboard) code(w http.ResponseWriter, r *http.Request, s session) {
	l := langOf(r)
	q := strings.TrimSpace(r.URL.Query().Get("code"))
	p := page{Title: "Code lookup", Nav: "code"}
	data := codeData{Query: q}
	status := http.StatusOK
	if q != "" {
		// The shape only (app.Parse): no key here, no signature check.
		c, err := app.Parse(app.Normalize(q))
		if err != nil {
			p.Error, status = l.T("Not a qrdesk label: it does not have the shape of one. Type or scan the whole code, e.g. WH-261129-A0001-AX27VGKZJTLY-A9TF3Z2MT."), http.StatusBadRequest
		} else {
			h, err := d.Store.CodeHistory(r.Context(), c.String())
			switch {
			case errors.Is(err, central.ErrNoCode):
				desks, _, err := d.Store.Desks(r.Context())
				if err != nil {
					d.fail(w, r, err)
					return
				}
				n := central.ExplainNotHeld(c, d.seen(desks))
				if n.Desk != nil && !s.scope.Has(n.Desk.Site) {
					d.forbidden(w, r, s, l.Tf("Label %s carries the letter of desk %s of site %s, which is not one of your sites (%s).", n.Code, n.Desk.Name, n.Desk.Site, s.scope.Names()))
					return
				}
				data.NotHeld, status = d.notHeld(l, n), http.StatusNotFound
			case err != nil:
				d.fail(w, r, err)
				return
			case !s.scope.Has(h.Site):
				d.forbidden(w, r, s, l.Tf("Label %s belongs to site %s, which is not one of your sites (%s).", h.Code.Code, h.Site, s.scope.Names()))
				return
			default:
				data.History = &h
			}
		}
	}
	p.Data = data
	d.render(w, r, status, "code", signedIn(p, s))
}

// seen adds to desks what they read of the feed since the server last
// stored it (as the Desks page does).
func (d *Dashboard) seen(desks []central.DeskState) []central.DeskState {
	if d.PendingAcks == nil {
		return desks
	}
	pending := d.PendingAcks()
	for i, k := range desks {
		if a, ok := pending[k.ID]; ok {
			desks[i].LastSeenAt = max(k.LastSeenAt, a.At)
		}
	}
	return desks
}

// notHeld says in l what the server can know of a label it does not hold:
// first where it would come from, then the two possibilities.
func (d *Dashboard) notHeld(l Lang, n central.NotHeld) []string {
	forged := l.T("Or it is not a genuine label: scan it at a desk, which checks its signature.")
	switch {
	case n.Letter == "":
		return []string{l.Tf("Not on the server: label %s carries no desk letter or date, so the server cannot tell which desk issued it; it is not uploaded yet.", n.Code), forged}
	case n.Desk == nil:
		return []string{l.Tf("Not on the server: label %s carries desk letter %s and label date %s, but no desk of this server has letter %s: it may come from a desk not enrolled here: enrol it with 'qrdesk-server station add NAME --letter %s', or bind the letter to its desk with 'qrdesk-server station letter NAME %s'.", n.Code, n.Letter, n.LabelDate, n.Letter, n.Letter, n.Letter), forged}
	case n.Desk.LastSeenAt == 0:
		return []string{l.Tf("Not on the server: label %s says it was issued by %s (letter %s) for %s and is not uploaded yet; %s has not synced with this server yet.", n.Code, n.Desk.Name, n.Letter, n.LabelDate, n.Desk.Name), forged}
	default:
		return []string{l.Tf("Not on the server: label %s says it was issued by %s (letter %s) for %s and is not uploaded yet; %s last synced at %s.", n.Code, n.Desk.Name, n.Letter, n.LabelDate, n.Desk.Name, time.Unix(n.Desk.LastSeenAt, 0).Format("2006-01-02 15:04:05")), forged}
	}
}
