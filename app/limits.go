package app

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits of the free-text fields that travel to the central server. One
// definition for the desk and the server: a desk refuses at once what the
// server would refuse later, so nothing is decided here and rejected there.
const (
	MaxOperatorChars = 40
	MaxReasonChars   = 200
	// MaxRefChars bounds a batch's ref, which travels with its codes to
	// the server and the other desks.
	MaxRefChars = 200
)

// CheckOperator validates an operator name.
func CheckOperator(name string) error {
	return CheckText("operator name", name, MaxOperatorChars)
}

// CheckReason validates the reason for a disable, enable or undo.
func CheckReason(reason string) error {
	return CheckText("reason", reason, MaxReasonChars)
}

// CheckRef validates a batch's ref (an order number, a route): one line
// of at most MaxRefChars characters.
func CheckRef(ref string) error {
	return CheckText("ref", ref, MaxRefChars)
}

// ValidStationLetter reports whether id is a station letter: one of A–Z.
func ValidStationLetter(id string) bool { return len(id) == 1 && id[0] >= 'A' && id[0] <= 'Z' }

// CheckText validates one line of text of at most max characters: valid
// UTF-8, no control characters, line breaks or direction marks (a name
// with U+202E reads backwards on the dashboard and in every list).
func CheckText(what, s string, max int) error {
	if !utf8.ValidString(s) {
		return &TextError{What: what, Reason: ReasonNotUTF8}
	}
	if n := utf8.RuneCountInString(s); n > max {
		return &TextError{What: what, Reason: ReasonTooLong, Chars: n, Max: max}
	}
	for _, r := range s {
		switch {
		case unicode.IsControl(r):
			return &TextError{What: what, Reason: ReasonControlChar, Rune: r}
		case unicode.Is(unicode.Bidi_Control, r):
			return &TextError{What: what, Reason: ReasonDirectionMark, Rune: r}
		case r == '\u2028' || r == '\u2029':
			return &TextError{What: what, Reason: ReasonLineBreak, Rune: r}
		}
	}
	return nil
}

// TextError is why CheckText refuses a text: Reason is one of the
// Reason… codes below, What the field's name ("customer name").
type TextError struct {
	What   string
	Reason string
	Chars  int  // ReasonTooLong: the text's length
	Max    int  // ReasonTooLong: the limit
	Rune   rune // the character refused
}

// Reasons CheckText gives (TextError.Reason), also an order file's row's
// reason code (OrderRowError.Reason).
const (
	ReasonNotUTF8       = "not_utf8_text"
	ReasonTooLong       = "too_long"
	ReasonControlChar   = "control_character"
	ReasonDirectionMark = "direction_mark"
	ReasonLineBreak     = "line_break"
)

func (e *TextError) Error() string {
	switch e.Reason {
	case ReasonNotUTF8:
		return fmt.Sprintf("%s is not valid text (UTF-8)", e.What)
	case ReasonTooLong:
		return fmt.Sprintf("%s is %d characters long: at most %d", e.What, e.Chars, e.Max)
	case ReasonControlChar:
		return fmt.Sprintf("%s contains a control character (%U): use plain text on one line", e.What, e.Rune)
	case ReasonDirectionMark:
		return fmt.Sprintf("%s contains an invisible direction mark (%U), which can make it read backwards on other screens: type it again without it", e.What, e.Rune)
	}
	return fmt.Sprintf("%s contains a line break (%U): use plain text on one line", e.What, e.Rune)
}

// HasDirectionMark reports whether s holds an invisible direction mark
// (Unicode's Bidi_Control: U+061C, U+200E, U+200F, U+202A–U+202E,
// U+2066–U+2069), which reverses how the text around it reads.
func HasDirectionMark(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return unicode.Is(unicode.Bidi_Control, r) })
}
