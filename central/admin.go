package central

import (
	"errors"
	"strings"
	"unicode"

	"qrdesk/app"
)

// Administrators sign in to the dashboard. Their passwords are stored only
// as slow hashes; a session is a random id the browser keeps in a cookie,
// stored only as its SHA-256.

// Admin is a dashboard account.
type Admin struct {
	Name      string
	CreatedAt int64
	// Sites are the names of the sites the administrator is limited to;
	// nil for one who sees every site (every administrator from before
	// sites, and one added without a limit).
	Sites []string
}

// Scope is what an administrator sees and acts on: every site (All), or
// the sites listed. Only an administrator of every site manages what is
// the deployment's own (the staff list, sites, administrators).
type Scope struct {
	All   bool
	Sites []Site // a limited administrator's sites, by name
}

// Has reports whether the scope holds the site of this name (any case,
// as site names are unique).
func (s Scope) Has(site string) bool {
	if s.All {
		return true
	}
	for _, t := range s.Sites {
		if strings.EqualFold(t.Name, site) {
			return true
		}
	}
	return false
}

// Names lists a limited scope's sites, for a message: "North, South".
func (s Scope) Names() string {
	names := make([]string, len(s.Sites))
	for i, t := range s.Sites {
		names[i] = t.Name
	}
	return strings.Join(names, ", ")
}

// ParseSiteList reads a list of site names as typed on the command line
// ("North, South"): names separated by commas, spaces around them dropped.
func ParseSiteList(list string) ([]string, error) {
	var out []string
	for _, n := range strings.Split(list, ",") {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return nil, Badf("name at least one site, e.g. --sites \"North,South\" ('qrdesk-server site list' shows them), or give every site with --all-sites")
	}
	return out, nil
}

// Session is a signed-in browser.
type Session struct {
	IDHash    string // SHA-256 of the cookie's value, hex
	Admin     string
	CreatedAt int64
	ExpiresAt int64
}

// AdminAction is one line of the administrators' audit trail.
type AdminAction struct {
	At      int64
	Admin   string // who did it ("" for the command line)
	Action  string // admin_add, admin_reset, admin_remove, admin_sites, sign_in, revoke, resolve
	Subject string // the admin, station or conflict acted on
	Detail  string
}

// Errors of the administrators' store.
var (
	ErrAdminExists = errors.New("an administrator with this name exists: pick another name, or give them a new password with 'admin reset NAME'")
	ErrNoAdmin     = errors.New("no such administrator ('qrdesk-server admin list' shows them)")
	ErrNoSession   = errors.New("not signed in, or the session expired: sign in again")
	// ErrPasswordChanged: a sign-in checked a password that was reset (or
	// whose account was removed) before its session was saved.
	ErrPasswordChanged = errors.New("the password was changed, or the account removed, while signing in: sign in with the new password")
	ErrNoConflict      = errors.New("no such conflict: it may have been listed under another day")
	ErrNoCode          = errors.New("the server has no such label: the desk that issued it has not uploaded it yet, or it was never issued")
)

// MaxAdminName bounds an administrator's name (characters).
const MaxAdminName = 40

// ValidateAdminName checks a new administrator's name: one word a person
// types at the sign-in page.
func ValidateAdminName(name string) error {
	if name == "" {
		return Badf("an administrator needs a name, e.g. 'manager'")
	}
	if err := app.CheckText("administrator name", name, MaxAdminName); err != nil {
		return &BadRequest{Reason: err.Error()}
	}
	if strings.IndexFunc(name, unicode.IsSpace) >= 0 {
		return Badf("administrator name %q has a space: use one word, e.g. 'li.wei'", name)
	}
	return nil
}

// ValidateNote checks a resolution's note.
func ValidateNote(note string) error {
	if strings.TrimSpace(note) == "" {
		return Badf("write a note saying how the conflict was resolved (e.g. 'customer had two parcels, checked with Desk 2')")
	}
	if err := app.CheckText("note", note, MaxNote); err != nil {
		return &BadRequest{Reason: err.Error()}
	}
	return nil
}
