package central

import (
	"errors"
	"strings"
	"testing"
)

// TestServerNamesRefuseDirectionMarks: a desk enrolled, or an
// administrator added, with an invisible direction mark in the name (it
// would read backwards on the dashboard) is refused with a clear message.
func TestServerNamesRefuseDirectionMarks(t *testing.T) {
	for _, mark := range []string{"\u202e", "\u2067", "\u200f"} {
		var br *BadRequest
		err := ValidateStation(Station{Name: "Desk " + mark + "2", Letter: "B"})
		if !errors.As(err, &br) || !strings.Contains(br.Reason, "station name contains an invisible direction mark") {
			t.Errorf("station %q: %v", mark, err)
		}
		err = ValidateAdminName("boss" + mark + "x")
		if err == nil || !strings.Contains(err.Error(), "invisible direction mark") {
			t.Errorf("administrator %q: %v", mark, err)
		}
	}
	if err := ValidateStation(Station{Name: "北门 Desk 2", Letter: "B"}); err != nil {
		t.Errorf("a plain name: %v", err)
	}
}
