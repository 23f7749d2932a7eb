package web

import (
	"errors"
	"net/http"
	"net/url"
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
	Late    []central.LateRedemption
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
	day, msg := d.dayOf(r)
	if p.Error == "" {
		p.Error = msg
	}
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
	data.Nav, data.Conflicts, data.Late = newDayNav(day, d.Now()), list, late
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
	date := r.PostFormValue("date")
	// The page shown again on a refusal is the day the form was on (and
	// its language switch comes back to that page).
	r.URL.Path, r.URL.RawQuery = "/conflicts", url.Values{"date": {date}}.Encode()
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
	http.Redirect(w, r, "/conflicts?"+url.Values{"date": {date}, "resolved": {strconv.FormatInt(id, 10)}}.Encode(), http.StatusSeeOther)
}
