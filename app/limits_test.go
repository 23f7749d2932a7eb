package app

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestNamesRefuseDirectionMarks: an invisible direction mark (U+202E
// reverses how the rest of a name reads on the dashboard and in every
// list) is refused in operator and station names like a control
// character, with an error that says what it is; ordinary names of every
// script pass.
func TestNamesRefuseDirectionMarks(t *testing.T) {
	marks := []rune{'\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069', '\u200e', '\u200f', '\u061c'}
	for _, m := range marks {
		name := "li" + string(m) + "gnaw"
		t.Run(fmt.Sprintf("%U", m), func(t *testing.T) {
			if err := CheckOperatorName(name); err == nil || !strings.Contains(err.Error(), "operator name contains an invisible direction mark") {
				t.Errorf("operator %q: %v", name, err)
			}
			var set Settings
			def, _ := SettingDefFor("station_name")
			err := def.Set(&set, "Desk "+string(m)+"2")
			var se *SettingError
			if !errors.As(err, &se) || se.Rule != ruleNoDirectionMark || set.StationName != "" {
				t.Errorf("station name: %v", err)
			}
			def, _ = SettingDefFor("operator")
			if err := def.Set(&set, name); !errors.As(err, &se) || se.Rule != ruleNoDirectionMark {
				t.Errorf("operator setting: %v", err)
			}
			if err := CheckText("station name", "Desk"+string(m), 40); err == nil || !strings.Contains(err.Error(), "read backwards") {
				t.Errorf("CheckText: %v", err)
			}
		})
	}
	for _, sep := range []string{"\u2028", "\u2029", "\n", "\x1b"} {
		if err := CheckOperatorName("li" + sep + "wei"); err == nil {
			t.Errorf("operator name with %q accepted", sep)
		}
	}
	for _, ok := range []string{"li.wei", "王芳", "Zoë", "محمد", "שרה", "Desk 2 – north"} {
		if err := CheckOperatorName(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
		var set Settings
		def, _ := SettingDefFor("station_name")
		if err := def.Set(&set, ok); err != nil {
			t.Errorf("station name %q: %v", ok, err)
		}
	}
	if got := (&SettingError{Label: "Station name", Value: "Desk\u202e2", Rule: ruleNoDirectionMark}).Error(); !strings.Contains(got, `"Desk\u202e2"`) {
		t.Errorf("the refusal does not show the mark: %s", got)
	}
}
