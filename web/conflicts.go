package web

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"qrdesk/central"
)

// The Conflicts page: labels redeemed at two desks while they could not
// both reach the server, both facts side by side, by day; an administrator
// marks one resolved with a note (added to its audit trail, never
// replacing an earlier note).

type conflictsData struct {
	Nav        dayNav
	Conflicts  []central.ConflictRecord
	Unresolved int
	// Late are the day's offline redemptions past expiry (by the server's
	// clock): not conflicts, but a parcel went out on an expired label.
	Late []central.LateRedemption
	// Removed are the day's redemptions and undos by operators removed
	// from the staff list by then (a desk offline had not heard).
	Removed []central.RemovedStaffWork
	Note    string // the note of a refused resolution, to fix and send again
	NoteFor int64
}

func (d *Dashboard) conflicts(w http.ResponseWriter, r *http.Request, s session) {
	p := page{Title: "Conflicts", Nav: "conflicts"}
	if r.URL.Query().Get("resolved") != "" {
		p.Notice = langOf(r).T("Resolution saved in the audit trail.")
	}
	d.showConflicts(w, r, s, http.StatusOK, p, conflictsData{})
}

func (d *Dashboard) showConflicts(w http.ResponseWriter, r *http.Request, s session, status int, p page, data conflictsData) {
	sites, siteMsg, ok := d.siteView(w, r, s)
	if !ok {
		return
	}
	day, msg := d.dayOf(r)
	if p.Error == "" {
		p.Error = joinMsg(msg, siteMsg)
	}
	p.Sites = sites
	list, err := d.Store.ConflictRecords(r.Context(), day.Unix(), day.AddDate(0, 0, 1).Unix())
	if err != nil {
		d.fail(w, r, err)
		return
	}
	late, err := d.Store.LateRedemptions(r.Context(), day.Unix(), day.AddDate(0, 0, 1).Unix())
	if err != nil {
		d.fail(w, r, err)
		return
	}
	removed, err := d.Store.RemovedStaffWork(r.Context(), day.Unix(), day.AddDate(0, 0, 1).Unix())
	if err != nil {
		d.fail(w, r, err)
		return
	}
	// The conflicts of the sites the page shows: over their labels
	// (wherever they were redeemed) or with one of their desks taking
	// part; the late redemptions of their labels and the work of removed
	// operators on them.
	list = slices.DeleteFunc(list, func(k central.ConflictRecord) bool { return !slices.ContainsFunc(k.Sites, sites.Shows) })
	late = slices.DeleteFunc(late, func(k central.LateRedemption) bool { return !sites.Shows(k.Site) })
	removed = slices.DeleteFunc(removed, func(k central.RemovedStaffWork) bool { return !sites.Shows(k.Site) })
	data.Nav, data.Conflicts, data.Late, data.Removed = newDayNav(day, d.Now()), list, late, removed
	for _, k := range list {
		if !k.Resolved() {
			data.Unresolved++
		}
	}
	p.Data = data
	d.render(w, r, status, "conflicts", signedIn(p, s))
}

func (d *Dashboard) resolve(w http.ResponseWriter, r *http.Request, s session) {
	l := langOf(r)
	date, site := r.PostFormValue("date"), r.PostFormValue("site")
	// The page shown again on a refusal is the day (and site) the form was
	// on, and its language switch comes back to that page.
	back := url.Values{"date": {date}}
	if site != "" {
		back.Set("site", site)
	}
	r.URL.Path, r.URL.RawQuery = "/conflicts", back.Encode()
	id, err := strconv.ParseInt(r.PostFormValue("id"), 10, 64)
	// A note is one paragraph: line breaks become spaces.
	note := strings.Join(strings.Fields(r.PostFormValue("note")), " ")
	refuse := func(msg string) {
		d.showConflicts(w, r, s, http.StatusBadRequest, page{Title: "Conflicts", Nav: "conflicts", Error: msg}, conflictsData{Note: note, NoteFor: id})
	}
	if err != nil {
		refuse(l.T("This form does not say which conflict to resolve: reload the page and try again."))
		return
	}
	if !s.scope.All {
		switch site, err := d.Store.ConflictSite(r.Context(), id); {
		case errors.Is(err, central.ErrNoConflict):
			// Said below, as for any administrator.
		case err != nil:
			d.fail(w, r, err)
			return
		case !s.scope.Has(site):
			d.forbidden(w, r, s, l.Tf("This conflict is about a label of site %s, which is not one of your sites (%s): you cannot see or resolve it.", site, s.scope.Names()))
			return
		}
	}
	err = d.Store.ResolveConflict(r.Context(), id, central.Resolution{Admin: s.Admin, Note: note, At: d.Now().Unix()})
	var br *central.BadRequest
	switch {
	case errors.Is(err, central.ErrNoConflict):
		refuse(l.T("No such conflict: reload the page and pick it from the list."))
		return
	case errors.As(err, &br) && note == "":
		refuse(l.T("Write a note saying how the conflict was resolved, e.g. 'customer had two parcels, checked with Desk 2'."))
		return
	case errors.As(err, &br):
		refuse(l.Tf("The note was not saved: %s.", br.Reason))
		return
	case err != nil:
		d.fail(w, r, err)
		return
	}
	d.Log.Info("dashboard: conflict resolved", "admin", s.Admin, "conflict", id)
	back.Set("resolved", strconv.FormatInt(id, 10))
	http.Redirect(w, r, "/conflicts?"+back.Encode(), http.StatusSeeOther)
}
