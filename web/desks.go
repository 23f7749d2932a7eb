package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	"qrdesk/central"
	"qrdesk/webhook"
)

// The Desks page: each enrolled desk, when the server last saw it, online
// or offline, how much of the change feed it has yet to read; revoking a
// desk asks for confirmation first.

type desksData struct {
	Desks []deskView
	Head  int64
	// Webhooks are the endpoints the server delivers its decided events
	// to (shown to an administrator of every site: they are the
	// deployment's).
	Webhooks []webhook.Backlog
}

// webhookStore is the Store's webhooks, when it has them (serverdb).
type webhookStore interface {
	WebhookBacklog(ctx context.Context) ([]webhook.Backlog, error)
}

type deskView struct {
	central.DeskState
	Online bool
	// Behind is how many changes the desk has yet to read (its site's and
	// the deployment-wide ones: a desk does not read other sites');
	// BehindCapped: at least that many.
	Behind       int64
	BehindCapped bool
	// NoLetter says why a desk from the first release has no letter yet
	// (central.Unbound.Why), "" when it has one.
	NoLetter string
}

func (d *Dashboard) desks(w http.ResponseWriter, r *http.Request, s session) {
	sites, siteMsg, ok := d.siteView(w, r, s)
	if !ok {
		return
	}
	list, head, err := d.Store.Desks(r.Context())
	if err != nil {
		d.fail(w, r, err)
		return
	}
	unbound, err := d.Store.Unbound(r.Context())
	if err != nil {
		d.fail(w, r, err)
		return
	}
	noLetter := map[string]string{}
	for _, u := range unbound {
		noLetter[u.Name] = u.Why()
	}
	var pending map[int64]central.FeedAck
	if d.PendingAcks != nil {
		pending = d.PendingAcks()
	}
	now := d.Now()
	data := desksData{Head: head}
	for _, k := range list {
		if !sites.Shows(k.Site) {
			continue
		}
		if a, ok := pending[k.ID]; ok {
			k.LastSeenAt, k.FeedAck = max(k.LastSeenAt, a.At), max(k.FeedAck, a.Position)
		}
		v := deskView{DeskState: k, Online: k.RevokedAt == 0 && k.Online(now), NoLetter: noLetter[k.Name]}
		if k.FeedAck > 0 && k.FeedAck < head {
			if v.Behind, v.BehindCapped, err = d.Store.UnreadChanges(r.Context(), k.SiteID, k.FeedAck); err != nil {
				d.fail(w, r, err)
				return
			}
		}
		data.Desks = append(data.Desks, v)
	}
	if ws, ok := d.Store.(webhookStore); ok && s.scope.All {
		if data.Webhooks, err = ws.WebhookBacklog(r.Context()); err != nil {
			d.fail(w, r, err)
			return
		}
	}
	l := langOf(r)
	p := page{Title: "Desks", Nav: "desks", Data: data, Sites: sites, Error: siteMsg}
	if name := r.URL.Query().Get("revoked"); name != "" {
		p.Notice = l.Tf("Desk %q is revoked: its token no longer works. To let it back in, run 'qrdesk-server station renew %s' and give the desk the new token.", name, name)
	}
	d.render(w, r, http.StatusOK, "desks", signedIn(p, s))
}

type revokeData struct {
	Name string
}

func (d *Dashboard) confirmRevoke(w http.ResponseWriter, r *http.Request, s session) {
	name := r.URL.Query().Get("name")
	if !d.mayActOnDesk(w, r, s, name) {
		return
	}
	d.render(w, r, http.StatusOK, "revoke", signedIn(page{Title: "Revoke a desk", Nav: "desks", Data: revokeData{Name: name}}, s))
}

// mayActOnDesk reports whether the administrator sees the desk's site;
// if not, it answers the 403 page. A desk that does not exist is left to
// the caller (it says so).
func (d *Dashboard) mayActOnDesk(w http.ResponseWriter, r *http.Request, s session, name string) bool {
	if s.scope.All {
		return true
	}
	stations, err := d.Store.Stations(r.Context())
	if err != nil {
		d.fail(w, r, err)
		return false
	}
	for _, st := range stations {
		if st.Name == name && !s.scope.Has(st.Site) {
			d.forbidden(w, r, s, langOf(r).Tf("Desk %q is in site %s, which is not one of your sites (%s): you cannot see or change it.", name, st.Site, s.scope.Names()))
			return false
		}
	}
	return true
}

func (d *Dashboard) revoke(w http.ResponseWriter, r *http.Request, s session) {
	name := r.PostFormValue("name")
	l := langOf(r)
	if !d.mayActOnDesk(w, r, s, name) {
		return
	}
	now := d.Now().Unix()
	err := d.Store.RevokeStation(r.Context(), name, now)
	var msg string
	switch {
	case errors.Is(err, central.ErrNoStation):
		msg = l.Tf("There is no desk called %q (it may have been renamed): go back to Desks and pick it from the list.", name)
	case errors.Is(err, central.ErrAlreadyRevoked):
		msg = l.Tf("Desk %q was revoked already. To let it back in, run 'qrdesk-server station renew %s'.", name, name)
	case err != nil:
		d.fail(w, r, err)
		return
	}
	if msg != "" {
		r.URL.Path, r.URL.RawQuery = "/desks", "" // where the language switch comes back to
		d.render(w, r, http.StatusConflict, "revoke", signedIn(page{Title: "Revoke a desk", Nav: "desks", Error: msg, Data: revokeData{}}, s))
		return
	}
	if err := d.Store.LogAdmin(r.Context(), central.AdminAction{At: now, Admin: s.Admin, Action: "revoke", Subject: name}); err != nil {
		d.Log.Warn("dashboard: revocation not written to the audit trail", "station", name, "error", err.Error())
	}
	d.Log.Info("dashboard: desk revoked", "admin", s.Admin, "station", name)
	http.Redirect(w, r, "/desks?revoked="+url.QueryEscape(name), http.StatusSeeOther)
}
