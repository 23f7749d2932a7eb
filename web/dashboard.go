// Package web is qrdesk-server's dashboard for the warehouse manager:
// server-rendered pages (html/template, embedded templates and CSS, no
// JavaScript build step) over the central store. Every page needs a
// signed-in administrator; a request without a session gets the sign-in
// page, never data.
package web

import (
	"embed"
	"errors"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"qrdesk/central"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Dashboard serves the pages. Set the fields, then call Handler.
type Dashboard struct {
	Store Store
	Log   *slog.Logger
	Now   func() time.Time
	// PendingAcks, if set, tells how far desks read the feed lately (the
	// API's memory of it), so "last seen" is fresher than the database.
	PendingAcks func() map[int64]central.FeedAck
	// Refresh is how often the Today page reloads itself (default 30 s).
	Refresh time.Duration
	// SessionLength is how long a sign-in lasts (default 12 hours).
	SessionLength time.Duration

	once    sync.Once
	pages   map[string]*pageTemplate
	limiter *loginLimiter
}

// Handler returns the dashboard's routes.
func (d *Dashboard) Handler() http.Handler {
	d.once.Do(d.init)
	mux := http.NewServeMux()
	static, _ := fs.Sub(staticFS, "static")
	mux.Handle("GET /static/", noListing(http.StripPrefix("/static/", http.FileServerFS(static))))
	mux.HandleFunc("GET /fonts/{name}", font)
	mux.HandleFunc("GET /login", d.loginPage)
	mux.HandleFunc("POST /login", d.sameOrigin(d.login))
	// A POST from the dashboard's own pages: a link or form of another site
	// does not change a manager's language.
	mux.HandleFunc("POST /lang", d.sameOrigin(d.switchLang))
	mux.HandleFunc("POST /logout", d.sameOrigin(d.auth(d.logout)))
	mux.HandleFunc("GET /{$}", d.auth(d.today))
	mux.HandleFunc("GET /today.csv", d.auth(d.todayCSV))
	mux.HandleFunc("GET /desks", d.auth(d.desks))
	mux.HandleFunc("GET /desks/revoke", d.auth(d.confirmRevoke))
	mux.HandleFunc("POST /desks/revoke", d.sameOrigin(d.auth(d.revoke)))
	mux.HandleFunc("GET /conflicts", d.auth(d.conflicts))
	mux.HandleFunc("POST /conflicts/resolve", d.sameOrigin(d.auth(d.resolve)))
	mux.HandleFunc("GET /code", d.auth(d.code))
	mux.HandleFunc("GET /operators", d.auth(d.operators))
	mux.HandleFunc("POST /operators/change", d.sameOrigin(d.auth(d.changeOperator)))
	mux.HandleFunc("/", d.notFound)
	return securityHeaders(mux)
}

func (d *Dashboard) init() {
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Refresh == 0 {
		d.Refresh = 30 * time.Second
	}
	if d.SessionLength == 0 {
		d.SessionLength = 12 * time.Hour
	}
	d.pages = parsePages()
	d.limiter = newLoginLimiter()
}

// securityHeaders keeps the pages out of frames and off other origins'
// scripts, and out of shared caches.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'")
		h.Set("X-Frame-Options", "DENY")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

func (d *Dashboard) notFound(w http.ResponseWriter, r *http.Request) {
	l := langOf(r)
	http.Error(w, l.T("No such page."), http.StatusNotFound)
}

// fail shows an unexpected error as a page: the details go to the log.
func (d *Dashboard) fail(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, r.Context().Err()) {
		return
	}
	d.Log.Error("dashboard", "path", r.URL.Path, "error", err.Error())
	l := langOf(r)
	http.Error(w, l.T("Something went wrong on the server; the details are in its log."), http.StatusInternalServerError)
}

// noListing serves the stylesheet and other files, but not a folder's
// list of them: a path ending in / (the folder itself) is a 404.
func noListing(files http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/") {
			http.NotFound(w, r)
			return
		}
		files.ServeHTTP(w, r)
	})
}
