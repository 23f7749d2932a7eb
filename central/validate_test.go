package central

import (
	"errors"
	"strings"
	"testing"

	"qrdesk/protocol"
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

// TestValidateHeldSerials: the serials a desk says it holds are of a
// letter, a day, a prefix of A–Z and a serial a label prints; anything
// else is refused before the server keeps it.
func TestValidateHeldSerials(t *testing.T) {
	mark := func(letter, date, prefix string, serial int) protocol.LetterSerialMark {
		return protocol.LetterSerialMark{Letter: letter, SerialMark: protocol.SerialMark{Date: date, Prefix: prefix, Serial: serial}}
	}
	if err := ValidateHeldSerials([]protocol.LetterSerialMark{mark("A", "2026-11-29", "", 6), mark("Z", "2026-11-30", "VIP", 99_999_999)}); err != nil {
		t.Errorf("good marks refused: %v", err)
	}
	for name, m := range map[string]protocol.LetterSerialMark{
		"two letters":   mark("AB", "2026-11-29", "", 1),
		"a digit":       mark("1", "2026-11-29", "", 1),
		"a bad date":    mark("A", "29.11.2026", "", 1),
		"a long prefix": mark("A", "2026-11-29", "ABCDEFG", 1),
		"a lower case":  mark("A", "2026-11-29", "vip", 1),
		"serial 0":      mark("A", "2026-11-29", "", 0),
		"9 digits":      mark("A", "2026-11-29", "", 100_000_000),
	} {
		var br *BadRequest
		if err := ValidateHeldSerials([]protocol.LetterSerialMark{m}); !errors.As(err, &br) {
			t.Errorf("%s: %v, want a bad request", name, err)
		}
	}
	if err := ValidateHeldSerials(make([]protocol.LetterSerialMark, protocol.MaxHeldMarks+1)); err == nil {
		t.Errorf("%d marks accepted", protocol.MaxHeldMarks+1)
	}
}
