package web

import (
	"bytes"
	"html/template"
	"net/http"
	"time"
)

// page is what every template gets; Data is the page's own.
type page struct {
	Title   string // English; the layout translates it
	Nav     string // the menu entry to highlight
	Error   string // shown in red, translated already
	Notice  string // shown in green, translated already
	Refresh int    // seconds until the page reloads itself (0: never)
	Data    any
	// Sites are the sites the page shows (pages by site: Today, Desks,
	// Conflicts); zero elsewhere.
	Sites siteView

	L     Lang
	Admin string // "" on the sign-in page
	// AllSites: the administrator sees every site (and so the staff list).
	AllSites bool
	CSRF     string
	LangTo   string // the language the switch offers ("zh" or "en")
	LangBack string // the page the switch comes back to
	LangName string
}

type pageTemplate = template.Template

var pageNames = []string{"login", "today", "desks", "revoke", "conflicts", "code", "operators", "forbidden"}

// parsePages parses each page with the layout (each defines "content").
func parsePages() map[string]*pageTemplate {
	funcs := template.FuncMap{
		"clock": func(unix int64) string {
			if unix == 0 {
				return "–"
			}
			return time.Unix(unix, 0).Format("15:04:05")
		},
		"datetime": func(unix int64) string {
			if unix == 0 {
				return "–"
			}
			return time.Unix(unix, 0).Format("2006-01-02 15:04:05")
		},
	}
	out := map[string]*pageTemplate{}
	for _, name := range pageNames {
		out[name] = template.Must(template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/"+name+".html"))
	}
	return out
}

// render writes a page; the session's fields are filled by the caller
// through withSession.
func (d *Dashboard) render(w http.ResponseWriter, r *http.Request, status int, name string, p page) {
	p.L = langOf(r)
	code, langName := p.L.Other()
	p.LangTo, p.LangBack, p.LangName = code, r.URL.RequestURI(), langName
	var buf bytes.Buffer
	if err := d.pages[name].Execute(&buf, p); err != nil {
		d.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	buf.WriteTo(w)
}

// signedIn fills a page's session fields.
func signedIn(p page, s session) page {
	p.Admin, p.CSRF, p.AllSites = s.Admin, s.csrf, s.scope.All
	return p
}
