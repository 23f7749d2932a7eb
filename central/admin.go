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
	Action  string // admin_add, admin_reset, admin_remove, sign_in, revoke, resolve
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
