package app

import (
	"strings"
	"testing"
)

func TestSettingsFromStoredCleansWhatAnOlderReleaseTook(t *testing.T) {
	stored := DefaultSettings().Values()
	stored["operator"] = "Dana\u200f"
	stored["serial_digits"] = "99" // no release allowed it: the default is used
	s := SettingsFromStored(stored)
	if s.Operator != "Dana" {
		t.Errorf("operator: got %q, want %q", s.Operator, "Dana")
	}
	if want := DefaultSettings().SerialDigits; s.SerialDigits != want {
		t.Errorf("serial digits: got %d, want the default %d", s.SerialDigits, want)
	}
	if len(s.Repaired) != 2 || !strings.Contains(s.Repaired[0], `operator "Dana\u200f" is not allowed`) || !strings.Contains(s.Repaired[0], `"Dana" is used`) ||
		!strings.Contains(s.Repaired[1], "its default is used") {
		t.Errorf("repaired: %q", s.Repaired)
	}
	if again := SettingsFromStored(DefaultSettings().Values()); again.Repaired != nil {
		t.Errorf("stored defaults repaired: %q", again.Repaired)
	}
}

func TestOperatorForServer(t *testing.T) {
	for _, tc := range []struct{ stored, want string }{
		{"wang", "wang"},
		{"Dana\u200f", "Dana"},
		{"Tab\tName", "Tab Name"},
		{strings.Repeat("x", 41), strings.Repeat("x", MaxOperatorChars)},
		{"\u200e\t", "unknown"},
		{"李 \u202e伟", "李 伟"},
	} {
		got := OperatorForServer(tc.stored)
		if got != tc.want {
			t.Errorf("OperatorForServer(%q) = %q, want %q", tc.stored, got, tc.want)
		}
		if CheckOperator(got) != nil {
			t.Errorf("OperatorForServer(%q) = %q, which the server refuses", tc.stored, got)
		}
	}
}
