package app

import (
	"fmt"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Names that read the same. Every list, the picker, the audit trail and
// the dashboard show "bo\u200bss" as "boss", and "Ju\u0308rgen" (the ü
// decomposed, as macOS and some pastes give it) as "Jürgen": a "remove
// Jürgen" typed at a desk would remove one and leave the other signing in.
// So a new operator's name holds no invisible character, is stored
// composed (NFC), and is refused when it reads as a current operator's
// name does (OperatorNameKey), at the desk and at the server. Names
// stored before these rules keep working as they are: they are never
// rewritten (a badge signs its name), only new names are checked.

// invisibleInName reports whether r shows nothing: a format character
// (zero-width space and joiners, soft hyphen, direction marks, the BOM), a
// variation selector or another default-ignorable code point (the Hangul
// fillers, the combining grapheme joiner).
func invisibleInName(r rune) bool {
	return unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Variation_Selector, r) ||
		unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r)
}

// CheckNewOperatorName validates the name of an operator being added:
// CheckOperatorName, and no invisible character.
func CheckNewOperatorName(name string) error {
	if err := CheckOperatorName(name); err != nil {
		return err
	}
	for _, r := range name {
		if invisibleInName(r) {
			return &InvisibleInNameError{Name: name, Char: r}
		}
	}
	return nil
}

// InvisibleInNameError refuses a new operator's name that holds an
// invisible character.
type InvisibleInNameError struct {
	Name string
	Char rune
}

func (e *InvisibleInNameError) Error() string {
	return fmt.Sprintf("the operator name %q holds an invisible character (%U), so it reads like another name in every list: type the name again without it", e.Name, e.Char)
}

// ComposedName is name with every letter written as one character where
// Unicode has one (NFC): "Ju\u0308rgen" becomes "Jürgen". A new
// operator's name is stored so.
func ComposedName(name string) string { return norm.NFC.String(name) }

// OperatorNameKey is how a name reads: compatibility-composed (NFKC:
// decomposed and composed letters, full-width and half-width forms,
// non-breaking and ideographic spaces read alike), without invisible
// characters, the case of A–Z folded, runs of spaces as one. Two names
// with the same key read the same in a list. The case of other letters
// (É, é) is not folded: every desk tells "Émile" and "émile" apart
// (SQLite's NOCASE), and so does the server (serverdb's sameName).
func OperatorNameKey(name string) string {
	s := strings.Map(func(r rune) rune {
		if invisibleInName(r) {
			return -1
		}
		return r
	}, norm.NFKC.String(name))
	return strings.Join(strings.Fields(asciiLower(s)), " ")
}

// asciiLower folds the case of A–Z only, as SQLite's NOCASE does.
func asciiLower(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'A' && r <= 'Z' {
			return r + ('a' - 'A')
		}
		return r
	}, s)
}

// ReadsLike returns the first of names that reads as name does
// (OperatorNameKey) without being name in another case of A–Z (the same
// name to a desk, refused as such), or "".
func ReadsLike(name string, names []string) string {
	key, same := OperatorNameKey(name), asciiLower(name)
	for _, n := range names {
		if asciiLower(n) != same && OperatorNameKey(n) == key {
			return n
		}
	}
	return ""
}

// LooksLikeError refuses a new operator whose name reads as a current
// operator's does.
type LooksLikeError struct {
	Name     string // the name refused
	Existing string // the current operator's name it reads as
}

func (e *LooksLikeError) Error() string {
	return fmt.Sprintf("%q reads the same as %q, a current operator: every list would show them alike; pick a name that reads differently (add a surname or an initial), or remove %s first", e.Name, e.Existing, e.Existing)
}
