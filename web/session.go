package web

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"

	"qrdesk/central"
)

// sessionCookie holds the session's random id; the server keeps only its
// SHA-256.
const sessionCookie = "qrdesk_session"

// session is the signed-in administrator of a request.
type session struct {
	central.Session
	csrf  string        // the token every form of this session carries
	scope central.Scope // the sites the administrator sees, read at every request
}

// auth runs h for a signed-in administrator; anyone else gets the sign-in
// page (through a redirect that remembers where they were going).
func (d *Dashboard) auth(h func(w http.ResponseWriter, r *http.Request, s session)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s, err := d.session(r)
		if errors.Is(err, central.ErrNoSession) {
			next := "/"
			if r.Method == http.MethodGet {
				next = r.URL.RequestURI()
			}
			http.Redirect(w, r, "/login?next="+url.QueryEscape(next), http.StatusSeeOther)
			return
		}
		if err != nil {
			d.fail(w, r, err)
			return
		}
		if r.Method == http.MethodPost && !validCSRF(s.csrf, r.PostFormValue("csrf")) {
			l := langOf(r)
			http.Error(w, l.T("This form is out of date (or was sent from another site): go back, reload the page and try again."), http.StatusForbidden)
			return
		}
		h(w, r, s)
	}
}

func (d *Dashboard) session(r *http.Request) (session, error) {
	c, err := r.Cookie(sessionCookie)
	if err != nil || c.Value == "" {
		return session{}, central.ErrNoSession
	}
	s, err := d.Store.Session(r.Context(), hashID(c.Value), d.Now().Unix())
	if err != nil {
		return session{}, err
	}
	// Read at every request: a change of the administrator's sites
	// ('qrdesk-server admin sites') applies from their next page.
	scope, err := d.Store.AdminScope(r.Context(), s.Admin)
	if errors.Is(err, central.ErrNoAdmin) {
		return session{}, central.ErrNoSession // removed since the session was read
	}
	if err != nil {
		return session{}, err
	}
	return session{Session: s, csrf: csrfToken(c.Value), scope: scope}, nil
}

func hashID(id string) string {
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:])
}

// csrfToken is derived from the session's secret id: a page of another
// site can neither read it nor guess it.
func csrfToken(id string) string {
	m := hmac.New(sha256.New, []byte(id))
	m.Write([]byte("qrdesk csrf"))
	return hex.EncodeToString(m.Sum(nil))
}

func validCSRF(want, got string) bool {
	return got != "" && subtle.ConstantTimeCompare([]byte(want), []byte(got)) == 1
}

// sameOrigin refuses a POST sent by a page of another site: browsers say
// where a form came from in Origin (or at least Referer). The session
// cookie is SameSite too; this also covers the sign-in form, which has no
// session yet.
func (d *Dashboard) sameOrigin(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		from := r.Header.Get("Origin")
		if from == "" || from == "null" {
			from = r.Header.Get("Referer")
		}
		u, err := url.Parse(from)
		if from == "" || err != nil || u.Host != r.Host {
			l := langOf(r)
			d.Log.Warn("dashboard: form from another origin refused", "origin", r.Header.Get("Origin"), "referer", r.Header.Get("Referer"), "host", r.Host)
			http.Error(w, l.T("This form was not sent from this dashboard's own page, so it was refused: open the dashboard's address and try again."), http.StatusForbidden)
			return
		}
		h(w, r)
	}
}

// newSessionID is 32 random bytes, URL-safe.
func newSessionID() (string, error) {
	buf := make([]byte, 32)
	if _, err := rand.Read(buf); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(buf), nil
}

type loginData struct {
	Name string
	Next string
}

func (d *Dashboard) loginPage(w http.ResponseWriter, r *http.Request) {
	if _, err := d.session(r); err == nil {
		http.Redirect(w, r, localPath(r.URL.Query().Get("next")), http.StatusSeeOther)
		return
	}
	d.render(w, r, http.StatusOK, "login", page{Title: "Sign in", Data: loginData{Next: localPath(r.URL.Query().Get("next"))}})
}

// login checks the name and password, with the failures of the name and
// of the address limited (loginLimiter).
func (d *Dashboard) login(w http.ResponseWriter, r *http.Request) {
	name, password := strings.TrimSpace(r.PostFormValue("name")), r.PostFormValue("password")
	data := loginData{Name: name, Next: localPath(r.PostFormValue("next"))}
	l := langOf(r)
	ip := clientIP(r)
	now := d.Now()
	if wait := d.limiter.blocked(name, ip, now); wait > 0 {
		d.Log.Warn("dashboard: sign-in refused, too many failures", "name", name, "remote", ip)
		d.render(w, r, http.StatusTooManyRequests, "login", page{Title: "Sign in", Data: data,
			Error: l.Tf("Too many failed sign-ins from here or for this name. Wait %s, then try again (or ask another administrator).", l.minutes(wait))})
		return
	}
	hash, err := d.Store.AdminPasswordHash(r.Context(), name)
	if err != nil && !errors.Is(err, central.ErrNoAdmin) {
		d.fail(w, r, err)
		return
	}
	if !checkPassword(hash, password) {
		d.limiter.failed(name, ip, now)
		d.Log.Warn("dashboard: sign-in failed", "name", name, "remote", ip)
		d.render(w, r, http.StatusUnauthorized, "login", page{Title: "Sign in", Data: data,
			Error: l.T("Wrong name or password. Check Caps Lock; a forgotten password is replaced on the server with 'qrdesk-server admin reset NAME'.")})
		return
	}
	d.limiter.succeeded(name)
	id, err := newSessionID()
	if err != nil {
		d.fail(w, r, err)
		return
	}
	s := central.Session{IDHash: hashID(id), Admin: name, CreatedAt: now.Unix(), ExpiresAt: now.Add(d.SessionLength).Unix()}
	if err := d.Store.AddSession(r.Context(), s, hash); errors.Is(err, central.ErrPasswordChanged) {
		d.Log.Warn("dashboard: sign-in refused, the password was reset or the account removed meanwhile", "name", name, "remote", ip)
		d.render(w, r, http.StatusUnauthorized, "login", page{Title: "Sign in", Data: data,
			Error: l.T("This account's password was just replaced, or the account removed: sign in with the new password.")})
		return
	} else if err != nil {
		d.fail(w, r, err)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: id, Path: "/", MaxAge: int(d.SessionLength.Seconds()),
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteLaxMode})
	d.Log.Info("dashboard: signed in", "admin", name, "remote", ip)
	http.Redirect(w, r, data.Next, http.StatusSeeOther)
}

func (d *Dashboard) logout(w http.ResponseWriter, r *http.Request, s session) {
	if err := d.Store.DeleteSession(r.Context(), s.IDHash); err != nil {
		d.fail(w, r, err)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteLaxMode})
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

// localPath keeps a redirect target on this site ("/" otherwise). A
// control character is refused too: browsers drop tabs and newlines from
// a Location, so "/\t/evil.example" would take them to evil.example.
func localPath(p string) string {
	if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.HasPrefix(p, "/\\") || strings.HasPrefix(p, "/login") ||
		strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return "/"
	}
	return p
}

// clientIP is the address the request came from (a proxy in front is one
// address for everyone: the per-name limit still holds).
func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
