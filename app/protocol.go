package app

import "slices"

// The desk–server protocol's version and what each side says of itself.
// A desk newer than its server must not wedge: it sends only the event
// kinds the server announced, and an event the server does not know is
// answered alone (OutcomeUnsupported) and waits at the desk until the
// server is upgraded.

// Protocol is the version of the desk–server protocol this build speaks,
// sent both ways in the ProtocolHeader. 1: no header (before versions);
// 2: the enrol answer lists the kinds and the station's write number,
// answers carry write numbers, an unknown kind is "unsupported".
const Protocol = 2

// ProtocolHeader carries Protocol on every request and answer.
const ProtocolHeader = "Qrdesk-Protocol"

// OutcomeUnsupported is the server's answer to an event of a kind it does
// not know: the event is not recorded; the desk keeps it and sends it again
// once the server announces the kind.
const OutcomeUnsupported = "unsupported"

// UnsupportedReason is what a clerk reads about such an event.
const UnsupportedReason = "the server is older than this desk: upgrade qrdesk-server"

// HeldBehindReason is what a clerk reads about an event that waits behind
// an earlier event of the same label the server could not decide: the
// desk queued them in that order, and they are decided in that order.
const HeldBehindReason = "waits behind an earlier event of this label the server could not decide (it is older than this desk: upgrade qrdesk-server)"

// BaseKinds are the event kinds every server knows: a server that
// announces no kinds (one from before versions) is taken to know these.
var BaseKinds = []string{"redeem", "disable", "enable"}

// Enrolment is the server's answer to a desk's enrolment.
type Enrolment struct {
	Station  string `json:"station"`
	Letter   string `json:"letter,omitempty"`
	KeyRing  string `json:"key_ring,omitempty"`
	Protocol int    `json:"protocol,omitempty"`
	// Kinds are the event kinds the server decides (nil: BaseKinds).
	Kinds []string `json:"kinds,omitempty"`
	// Writes is the station's write counter: the number of the last write
	// the server holds for this station (nil: a server before restore
	// detection).
	Writes *int64 `json:"writes,omitempty"`
}

// KnowsKind reports whether a server that announced kinds decides kind.
func KnowsKind(kinds []string, kind string) bool {
	if len(kinds) == 0 {
		kinds = BaseKinds
	}
	return slices.Contains(kinds, kind)
}

// ServerState is what a desk keeps of its server between syncs.
type ServerState struct {
	// Station is this desk's station name at the server (its enrolment);
	// the write numbers below are of that station's counter.
	Station string
	// Kinds are the event kinds the server announced (nil: BaseKinds).
	Kinds []string
	// Highest is the highest write number the server gave this desk.
	Highest int64
	// Lost is set when the server gave a number this desk holds for
	// another write: the server lost history, the desk starts over.
	Lost bool
}

// lostHistory reports whether an enrolment shows the server lost writes
// it had acknowledged to this desk: its counter for the station is below
// the highest number it gave (a restore from a backup, a failover to a
// lagging standby), or an answer since repeated a number.
func lostHistory(before ServerState, en Enrolment) bool {
	if before.Station != "" && before.Station != en.Station {
		return false // another station's counter: nothing to compare
	}
	return before.Lost || (en.Writes != nil && *en.Writes < before.Highest)
}
