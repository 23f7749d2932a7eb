package app

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// Limits of the free-text fields that travel to the central server. One
// definition for the desk and the server: a desk refuses at once what the
// server would refuse later, so nothing is decided here and rejected there.
const (
	MaxOperatorChars = 40
	MaxReasonChars   = 200
)

// CheckOperator validates an operator name.
func CheckOperator(name string) error {
	return CheckText("operator name", name, MaxOperatorChars)
}

// CheckReason validates the reason for a disable, enable or undo.
func CheckReason(reason string) error {
	return CheckText("reason", reason, MaxReasonChars)
}

// ValidStationLetter reports whether id is a station letter: one of A–Z.
func ValidStationLetter(id string) bool { return len(id) == 1 && id[0] >= 'A' && id[0] <= 'Z' }

// CheckText validates one line of text of at most max characters.
func CheckText(what, s string, max int) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("%s is not valid text (UTF-8)", what)
	}
	if n := utf8.RuneCountInString(s); n > max {
		return fmt.Errorf("%s is %d characters long: at most %d", what, n, max)
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return fmt.Errorf("%s contains a control character (%U): use plain text on one line", what, r)
		}
	}
	return nil
}
