package web

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"qrdesk/app"
	"qrdesk/central"
	"qrdesk/protocol"
)

// The Operators page: the deployment's staff list, the operators who sign
// in at every desk that syncs with this server. Adding one (with a PIN,
// hashed here and never shown again), a new PIN for a forgotten one,
// renewing a lost badge and removing one reach every desk at its next
// sync; badges are printed at a desk. No PIN nor PIN hash is ever on the
// page. A PIN lockout after wrong PINs is counted at each desk, so it is
// lifted there (the window's Staff screen), not here.

type operatorsData struct {
	Operators []protocol.StaffMember
	// Name and Supervisor refill the add form after a refusal.
	Name       string
	Supervisor bool
}

func (d *Dashboard) operators(w http.ResponseWriter, r *http.Request, s session) {
	l := langOf(r)
	if !d.mayManageStaff(w, r, s) {
		return
	}
	p := page{Title: "Operators", Nav: "operators"}
	q := r.URL.Query()
	switch name := q.Get("name"); q.Get("done") {
	case protocol.StaffAdd:
		p.Notice = l.Tf("%s is in the staff list: every desk has them after its next sync. Print their badge at a desk (Settings > Print operator badges…).", name)
	case protocol.StaffRenewBadge:
		p.Notice = l.Tf("%s's old badge stops working at every desk after its next sync: print the new one at a desk (Settings > Print operator badges…).", name)
	case protocol.StaffRemove:
		p.Notice = l.Tf("%s is removed: their badge and PIN stop working at every desk after its next sync.", name)
	case protocol.StaffSetPIN:
		p.Notice = l.Tf("%s has a new PIN: it works at every desk after its next sync, and the old one stops there then.", name)
	}
	d.showOperators(w, r, s, http.StatusOK, p, operatorsData{})
}

func (d *Dashboard) showOperators(w http.ResponseWriter, r *http.Request, s session, status int, p page, data operatorsData) {
	list, err := d.Store.Staff(r.Context(), true)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	for i := range list {
		list[i].PINHash = "" // never on a page
	}
	data.Operators = list
	p.Data = data
	d.render(w, r, status, "operators", signedIn(p, s))
}

// mayManageStaff reports whether the administrator sees every site: the
// staff list is the deployment's, shared by every site, so a limited
// administrator neither sees nor changes it (the 403 page).
func (d *Dashboard) mayManageStaff(w http.ResponseWriter, r *http.Request, s session) bool {
	if s.scope.All {
		return true
	}
	d.forbidden(w, r, s, langOf(r).Tf("The staff list belongs to the whole deployment: only an administrator of every site can see or change it. Your sites: %s.", s.scope.Names()))
	return false
}

// changeOperator makes the change the form names: add (name, PIN,
// supervisor), set-pin (name, PIN), renew-badge or remove (name).
func (d *Dashboard) changeOperator(w http.ResponseWriter, r *http.Request, s session) {
	l := langOf(r)
	if !d.mayManageStaff(w, r, s) {
		return
	}
	r.URL.Path, r.URL.RawQuery = "/operators", "" // where the language switch comes back to
	ch := protocol.StaffChange{Action: r.PostFormValue("action"), Name: strings.TrimSpace(r.PostFormValue("name")), Supervisor: r.PostFormValue("supervisor") != ""}
	refuse := func(msg string) {
		data := operatorsData{}
		if ch.Action == protocol.StaffAdd {
			data.Name, data.Supervisor = ch.Name, ch.Supervisor
		}
		d.showOperators(w, r, s, http.StatusBadRequest, page{Title: "Operators", Nav: "operators", Error: msg}, data)
	}
	switch ch.Action {
	case protocol.StaffAdd, protocol.StaffSetPIN:
		pin := r.PostFormValue("pin")
		if err := app.CheckPIN(pin); err != nil {
			if ch.Action == protocol.StaffSetPIN {
				refuse(l.Tf("The PIN of %s was not changed: %s.", ch.Name, err.Error()))
				return
			}
			refuse(l.Tf("The operator was not added: %s.", err.Error()))
			return
		}
		hash, err := app.HashPIN(pin)
		if err != nil {
			d.fail(w, r, err)
			return
		}
		ch.PINHash = hash
	case protocol.StaffRenewBadge, protocol.StaffRemove:
	default:
		refuse(l.T("This form does not say what to do: reload the page and try again."))
		return
	}
	if ch.Action == protocol.StaffAdd {
		ch.Name = app.ComposedName(ch.Name)
	}
	_, err := d.Store.ChangeStaff(r.Context(), ch, s.Admin, d.Now().Unix())
	var br *central.BadRequest
	var like *app.LooksLikeError
	switch {
	case errors.As(err, &like):
		refuse(l.Tf("%s reads the same as %s, a current operator: pick a name that reads differently (add a surname or an initial), or remove %s first.", ch.Name, like.Existing, like.Existing))
		return
	case errors.Is(err, central.ErrStaffExists):
		refuse(l.Tf("There is already an operator called %s: pick another name, or remove the old one first.", ch.Name))
		return
	case errors.Is(err, central.ErrNoStaff):
		refuse(l.Tf("There is no current operator called %s: reload the page and pick them from the list.", ch.Name))
		return
	case errors.As(err, &br):
		refuse(l.Tf("The operator was not added: %s.", strings.TrimPrefix(br.Reason, "staff: ")))
		return
	case err != nil:
		d.fail(w, r, err)
		return
	}
	d.Log.Info("dashboard: staff list changed", "admin", s.Admin, "action", ch.Action, "operator", ch.Name)
	http.Redirect(w, r, "/operators?"+url.Values{"done": {ch.Action}, "name": {ch.Name}}.Encode(), http.StatusSeeOther)
}
