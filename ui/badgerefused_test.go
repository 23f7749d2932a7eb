package ui

import (
	"strings"
	"testing"
	"unicode"

	"qrdesk/app"
)

// TestBadgeRefusedText: the BADGE REFUSED line starts with a capital, and
// a badge only a new one replaces sends the picker to a supervisor, with
// no command line and no arrow (no font of the window draws →).
func TestBadgeRefusedText(t *testing.T) {
	for _, err := range []error{
		&app.Error{Kind: app.KindInvalid, Message: "this badge was not made at this desk or was altered: do not let it sign in", Err: app.ErrSignInRefused},
		&app.Error{Kind: app.KindInvalid, Message: app.ErrOldBadge.Error(), Err: app.ErrOldBadge},
		&app.Error{Kind: app.KindInvalid, Message: "x", Err: app.ErrBadgeBeforeJoin},
	} {
		got := badgeRefusedText(err)
		if r := []rune(got)[0]; !unicode.IsUpper(r) {
			t.Errorf("%q starts in lower case", got)
		}
		if strings.ContainsAny(got, "→'") || strings.Contains(got, "qrdesk print") {
			t.Errorf("%q shows a command line or an arrow to a picker", got)
		}
	}
}
