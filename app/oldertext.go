package app

import (
	"strings"
	"unicode"
)

// Text an older release stored without today's checks (the first release
// took any operator name of a scan: --operator, $QRDESK_OPERATOR, the
// login name) is cleaned where this release would refuse it, so that what
// that desk did still counts: a redemption it made offline is sent under a
// name the server takes, rather than refused and never compared with the
// other desks' (a double use that never becomes a conflict).

// cleanStoredText drops invisible format characters (direction marks,
// zero-width spaces), makes control characters spaces and trims the
// spaces at both ends.
func cleanStoredText(v string) string {
	v = strings.Map(func(r rune) rune {
		switch {
		case unicode.Is(unicode.Cf, r):
			return -1
		case unicode.IsControl(r):
			return ' '
		}
		return r
	}, v)
	return strings.Join(strings.Fields(v), " ")
}

// OperatorForServer is the operator name an event carries to the server:
// the name as stored when the server takes it, else the name cleaned and
// cut to MaxOperatorChars characters, or "unknown" if nothing is left.
// The same stored name always gives the same result, so an event sent
// again is the same event.
func OperatorForServer(name string) string {
	if CheckOperator(name) == nil {
		return name
	}
	cleaned := []rune(cleanStoredText(name))
	if len(cleaned) > MaxOperatorChars {
		cleaned = cleaned[:MaxOperatorChars]
	}
	if out := strings.TrimSpace(string(cleaned)); out != "" && CheckOperator(out) == nil {
		return out
	}
	return "unknown"
}
