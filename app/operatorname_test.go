package app

import (
	"errors"
	"testing"
)

// TestOperatorNamesThatReadTheSame: the names a list shows alike have one
// key; names that read differently keep theirs; a new name with an
// invisible character is refused, with the character named.
func TestOperatorNamesThatReadTheSame(t *testing.T) {
	same := []struct{ a, b string }{
		{"boss", "bo\u200bss"},               // zero-width space
		{"J\u00fcrgen", "Ju\u0308rgen"},      // composed, decomposed
		{"boss", "\uff42\uff4f\uff53\uff53"}, // full-width
		{"Boss", "\uff42\uff4f\uff53\uff53"}, // A–Z case and width
		{"jan li", "jan\u00a0li"},            // no-break space
		{"wang wei", "wang\u3000wei"},        // ideographic space
		{"boss", "boss\ufe0f"},               // variation selector
	}
	for _, c := range same {
		if OperatorNameKey(c.a) != OperatorNameKey(c.b) {
			t.Errorf("%q and %q read the same but have keys %q and %q", c.a, c.b, OperatorNameKey(c.a), OperatorNameKey(c.b))
		}
	}
	for _, c := range []struct{ a, b string }{{"jan", "jana"}, {"J\u00fcrgen", "Jurgen"}, {"\u00c9mile", "\u00e9mile"}, {"J\u00fcrgen", "J\u00dcRGEN"}, {"\u674e\u4f1f", "\u674e\u5a01"}} {
		if OperatorNameKey(c.a) == OperatorNameKey(c.b) {
			t.Errorf("%q and %q read differently but share key %q", c.a, c.b, OperatorNameKey(c.a))
		}
	}
	for _, name := range []string{"bo\u200bss", "li\u00adwei", "\ufeffwang", "zhao\u2060", "a\u034fb", "\u3164"} {
		var inv *InvisibleInNameError
		if err := CheckNewOperatorName(name); !errors.As(err, &inv) && err == nil {
			t.Errorf("CheckNewOperatorName(%q) took it", name)
		}
		if CheckOperatorName(name) != nil && name != "\u3164" {
			t.Errorf("CheckOperatorName(%q) refuses a name an older release stored: it must keep working", name)
		}
	}
	if got := ComposedName("Ju\u0308rgen"); got != "J\u00fcrgen" {
		t.Errorf("ComposedName: %q", got)
	}
	if got := ReadsLike("\uff22oss", []string{"li", "boss"}); got != "boss" {
		t.Errorf("ReadsLike: %q, want boss", got)
	}
}
