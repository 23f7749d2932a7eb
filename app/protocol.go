package app

import "qrdesk/protocol"

// What a desk keeps of its server (package protocol has the protocol).
// A desk newer than its server must not wedge: it sends only the event
// kinds the server announced, and an event the server does not know is
// answered alone (OutcomeUnsupported) and waits at the desk until the
// server is upgraded.

// ServerState is what a desk keeps of its server between syncs.
type ServerState struct {
	// Station is this desk's station name at the server (its enrolment);
	// the write numbers below are of that station's counter.
	Station string
	// Kinds are the event kinds the server announced (nil: BaseKinds).
	Kinds []protocol.Kind
	// Protocol is the protocol version the server announced (0: none).
	Protocol int
	// Highest is the highest write number the server gave this desk.
	Highest int64
	// Checks are the writes the desk names at its next enrolment (see
	// protocol.EnrolRequest): the highest the server confirmed holding and
	// those not confirmed yet, oldest first, and the highest.
	Checks []protocol.WriteCheck
	// Lost is set when the server gave a number this desk holds for
	// another write: the server lost history, the desk starts over.
	Lost bool
	// Sites is what the server announced of its sites (nil: a server
	// before sites, or never enrolled): this desk's site, the letters'
	// sites, and what to do offline with another site's label.
	Sites *protocol.SiteInfo
	// Letter is the station letter the server enrolled this desk with, as
	// its last enrolment said ("": never enrolled, or the server binds the
	// letter at the desk's first upload). The desk issues with it.
	Letter string
}

// lostHistory reports whether an enrolment shows the server lost writes
// it had acknowledged to this desk: its counter for the station is below
// the highest number it gave (a restore from a backup, a failover to a
// lagging standby), or an answer since repeated a number.
func lostHistory(before ServerState, en protocol.Enrolment) bool {
	if before.Station != "" && before.Station != en.Station {
		return false // another station's counter: nothing to compare
	}
	return before.Lost || en.Lost || (en.Writes != nil && *en.Writes < before.Highest)
}
