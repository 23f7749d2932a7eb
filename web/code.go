package web

import (
	"errors"
	"net/http"
	"strings"

	"qrdesk/central"
)

// The Code page: one label's whole history across desks.

type codeData struct {
	Query   string
	History *central.CodeHistory
}

func (d *Dashboard) code(w http.ResponseWriter, r *http.Request, s session) {
	l := langOf(r)
	q := strings.TrimSpace(r.URL.Query().Get("code"))
	p := page{Title: "Code lookup", Nav: "code"}
	data := codeData{Query: q}
	status := http.StatusOK
	if q != "" {
		code, err := central.NormalizeCode(q)
		if err != nil {
			p.Error, status = l.T("This is not a label code: type or scan the whole code, e.g. WH-261129-A0001-AX27VGKZJTLY-A9TF3Z2MT."), http.StatusBadRequest
		} else {
			h, err := d.Store.CodeHistory(r.Context(), code)
			switch {
			case errors.Is(err, central.ErrNoCode):
				p.Error, status = l.Tf("The server has no label %s: the desk that issued it has not uploaded it yet (it does at its next sync), or it was never issued.", code), http.StatusNotFound
			case err != nil:
				d.fail(w, r, err)
				return
			default:
				data.History = &h
			}
		}
	}
	p.Data = data
	d.render(w, r, status, "code", signedIn(p, s))
}
