package web

import (
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"qrdesk/central"
)

// Sites on the dashboard. Each page shows the sites the administrator
// sees (every site, or those they are limited to: central.Scope), or one
// of them picked with ?site=NAME. With one site (the common case) a page
// looks as it did before sites, with the site's name under its title.
// A limited administrator who names a desk, conflict or label of another
// site, by URL or form, gets a 403 page saying so, and nothing changes.

// siteView is what a page shows of the sites.
type siteView struct {
	Visible []central.Site // the sites the administrator sees, by name
	Picked  string         // the site picked (?site=NAME), "" for all of Visible
	All     bool           // the administrator sees every site
}

// Multi reports whether the administrator sees more than one site: then
// the pages have a site picker and a site column.
func (v siteView) Multi() bool { return len(v.Visible) > 1 }

// Only is the one site a page shows ("" when it shows several): the
// picked one, or the administrator's only site.
func (v siteView) Only() string {
	if v.Picked != "" {
		return v.Picked
	}
	if len(v.Visible) == 1 {
		return v.Visible[0].Name
	}
	return ""
}

// Shows reports whether the page shows the site of this name.
func (v siteView) Shows(site string) bool {
	if v.Picked != "" {
		return strings.EqualFold(v.Picked, site)
	}
	return v.All || slices.ContainsFunc(v.Visible, func(s central.Site) bool { return strings.EqualFold(s.Name, site) })
}

// IDs are the sites to read (by id): nil for every site.
func (v siteView) IDs() []int64 {
	if v.All && v.Picked == "" {
		return nil
	}
	ids := []int64{}
	for _, s := range v.Visible {
		if v.Picked == "" || s.Name == v.Picked {
			ids = append(ids, s.ID)
		}
	}
	return ids
}

// Names lists the administrator's sites, for a message.
func (v siteView) Names() string {
	names := make([]string, len(v.Visible))
	for i, s := range v.Visible {
		names[i] = s.Name
	}
	return strings.Join(names, ", ")
}

// siteView reads the sites the administrator sees and the page's
// ?site=NAME. A name no site has gives a message (the page shows all the
// administrator's sites); a site the administrator does not see answers
// the 403 page, and ok is false.
func (d *Dashboard) siteView(w http.ResponseWriter, r *http.Request, s session) (v siteView, msg string, ok bool) {
	sites, err := d.Store.Sites(r.Context())
	if err != nil {
		d.fail(w, r, err)
		return v, "", false
	}
	v.All = s.scope.All
	for _, site := range sites {
		if s.scope.Has(site.Name) {
			v.Visible = append(v.Visible, site)
		}
	}
	name := strings.TrimSpace(r.URL.Query().Get("site"))
	if name == "" {
		return v, "", true
	}
	l := langOf(r)
	i := slices.IndexFunc(sites, func(x central.Site) bool { return strings.EqualFold(x.Name, name) })
	switch {
	case i < 0:
		return v, l.Tf("There is no site %q: pick one in the list. Showing all your sites instead.", name), true
	case !s.scope.Has(sites[i].Name):
		d.forbidden(w, r, s, l.Tf("Site %s is not one of your sites (%s).", sites[i].Name, s.scope.Names()))
		return v, "", false
	}
	v.Picked = sites[i].Name
	return v, "", true
}

// forbidden answers a limited administrator who asked for another site's
// page, desk, conflict or label: 403, with msg (translated already).
func (d *Dashboard) forbidden(w http.ResponseWriter, r *http.Request, s session, msg string) {
	d.Log.Warn("dashboard: refused, not one of the administrator's sites", "admin", s.Admin, "path", r.URL.Path, "query", r.URL.RawQuery)
	d.render(w, r, http.StatusForbidden, "forbidden", signedIn(page{Title: "Not one of your sites", Error: msg}, s))
}

// Link is a dashboard path with query values (pairs of key and value),
// and the picked site (so the day picker, the export and the menu keep
// it). A template.URL: html/template would escape its & and =.
func (p page) Link(path string, kv ...string) template.URL {
	q := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			q.Set(kv[i], kv[i+1])
		}
	}
	if p.Sites.Picked != "" {
		q.Set("site", p.Sites.Picked)
	}
	if len(q) == 0 {
		return template.URL(path)
	}
	return template.URL(path + "?" + q.Encode())
}
