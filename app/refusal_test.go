package app

import (
	"testing"

	"qrdesk/protocol"
)

// TestServerRefusalKinds: which refusals keep a desk's events waiting
// (about the desk: nothing it sends is taken until someone acts) and which
// mark one refused for good (about the content).
func TestServerRefusalKinds(t *testing.T) {
	for _, tc := range []struct {
		name               string
		refusal            ServerRefusal
		aboutDesk, content bool
	}{
		{"DeskTooOld", ServerRefusal{Status: 426, Code: protocol.RefusedDeskTooOld}, true, false},
		{"Revoked", ServerRefusal{Status: 403, Code: RefusedRevoked}, true, false},
		{"UnknownToken", ServerRefusal{Status: 401, Code: RefusedUnknownToken}, true, false},
		{"WrongRing", ServerRefusal{Status: 409, Code: RefusedWrongRing}, true, false},
		{"Invalid", ServerRefusal{Status: 400, Code: RefusedInvalid}, false, true},
		{"EventReused", ServerRefusal{Status: 409, Code: RefusedEventReused}, false, true},
		{"ProxyNotFound", ServerRefusal{Status: 404}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.refusal.AboutDesk(); got != tc.aboutDesk {
				t.Errorf("AboutDesk() = %v, want %v", got, tc.aboutDesk)
			}
			if got := tc.refusal.AboutContent(); got != tc.content {
				t.Errorf("AboutContent() = %v, want %v", got, tc.content)
			}
		})
	}
}
