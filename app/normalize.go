package app

import (
	"regexp"
	"strings"
	"unicode"
)

var (
	// aimPrefix is an AIM symbology identifier some scanners send first,
	// e.g. "]Q1" for a QR code.
	aimPrefix = regexp.MustCompile(`^\][A-Za-z][0-9]`)
	// eciEscape is an ECI designator such as `\000026` (UTF-8) that scanners
	// in "transmit ECI" mode insert.
	eciEscape = regexp.MustCompile(`\\[0-9]{6}`)
)

// Normalize cleans what a scanner or a person typed: it trims whitespace and
// control characters, removes AIM symbology identifiers and ECI escapes, and
// upper-cases (Caps Lock flips case; QR alphanumeric has no lower case).
// Separators stay; Parse ignores them.
func Normalize(raw string) string {
	s := strings.TrimFunc(raw, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) })
	s = aimPrefix.ReplaceAllString(s, "")
	s = eciEscape.ReplaceAllString(s, "")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, s)
	return strings.ToUpper(strings.TrimSpace(s))
}
