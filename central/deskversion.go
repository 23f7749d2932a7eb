package central

import (
	"fmt"

	"qrdesk/protocol"
)

// DeskVersion is what a desk says it runs, from the headers of its
// requests: its release (protocol.ReleaseHeader, "" from a desk older than
// the header) and the protocol version it speaks (protocol.Header; 1 from
// a desk without one). The zero value: not heard from since the server's
// upgrade.
type DeskVersion struct {
	Release  string
	Protocol int
}

// Known reports whether the desk was heard from with a version.
func (v DeskVersion) Known() bool { return v.Protocol > 0 }

// TooOld says why a desk is too old for this deployment ("" when it is
// not, or its version is not known): it speaks an older protocol than the
// server, so it does not understand every change the feed carries (undo,
// replace, expiry) and refuses those labels while its sync reports success.
func (v DeskVersion) TooOld() string {
	if !v.Known() || v.Protocol >= protocol.RefVersion {
		// A desk of RefVersion decides and shows as this server does; its
		// closes name no site, and are judged on the server's record alone.
		return ""
	}
	if v.Protocol >= protocol.ClockVersion {
		// It decides as this server does; it misses only what later
		// versions added to show.
		return fmt.Sprintf("speaks protocol %d, the server %d: it does not show the refs of other desks' batches; upgrade qrdesk at this desk", v.Protocol, protocol.Version)
	}
	if v.Protocol < protocol.OldestDesk {
		// Served only its online scans, during the roll-out window
		// (server/olddesks.go).
		return fmt.Sprintf("speaks protocol %d (a release from before versions), the server %d: the server decides its scans while it is online (until the roll-out window is closed) and refuses its sync, so what it redeems offline waits at the desk; upgrade qrdesk at this desk", v.Protocol, protocol.Version)
	}
	return fmt.Sprintf("speaks protocol %d, the server %d: it does not understand every change the other desks make (undo, replacement, expiry); upgrade qrdesk at this desk", v.Protocol, protocol.Version)
}
