package app

import "qrdesk/protocol"

// Status is where a code is in its life. The state machine:
//
//	unused → used      (redeem; final)
//	unused → expired   (its expiry time passed)
//	unused ↔ disabled  (by a clerk, with a reason)
type Status string

const (
	StatusUnused   Status = "unused"
	StatusUsed     Status = "used"
	StatusExpired  Status = "expired"
	StatusDisabled Status = "disabled"
)

// Statuses lists every status, for validation and filters.
var Statuses = []Status{StatusUnused, StatusUsed, StatusExpired, StatusDisabled}

// ParseStatus validates a status name.
func ParseStatus(s string) (Status, bool) {
	for _, st := range Statuses {
		if string(st) == s {
			return st, true
		}
	}
	return "", false
}

// Outcome is the verdict on one scan or check.
type Outcome string

// The outcomes the server also gives are the protocol's (package
// protocol); the others are the desk's own.
const (
	OutcomeRedeemed     Outcome = Outcome(protocol.OutcomeRedeemed)
	OutcomeValid        Outcome = "valid" // check only: it would redeem
	OutcomeAlreadyUsed  Outcome = Outcome(protocol.OutcomeAlreadyUsed)
	OutcomeExpired      Outcome = Outcome(protocol.OutcomeExpired)
	OutcomeDisabled     Outcome = Outcome(protocol.OutcomeDisabled)
	OutcomeUnknown      Outcome = Outcome(protocol.OutcomeUnknown)
	OutcomeBadSignature Outcome = "bad_signature"
	OutcomeMalformed    Outcome = "malformed"
	// OutcomeServerRefused: the central server answered no to the desk
	// itself (revoked, wrong key ring) or to the scan (its operator removed
	// from the staff list); nothing was decided. Reason says why.
	OutcomeServerRefused Outcome = "server_refused"
)

// RefusalOutcomes are the outcomes counted as refused, in report order.
var RefusalOutcomes = []Outcome{OutcomeAlreadyUsed, OutcomeExpired, OutcomeDisabled, OutcomeUnknown, OutcomeBadSignature, OutcomeMalformed, OutcomeServerRefused, OutcomeBadge}

// Accepted reports whether the outcome lets the parcel go.
func (o Outcome) Accepted() bool { return o == OutcomeRedeemed || o == OutcomeValid }

// Held reports whether the outcome is a verdict on a label the desk
// holds (redeemed, valid, used, just scanned, expired, disabled): one
// that may name the label's order.
func (o Outcome) Held() bool {
	switch o {
	case OutcomeRedeemed, OutcomeValid, OutcomeAlreadyUsed, OutcomeJustScanned, OutcomeExpired, OutcomeDisabled:
		return true
	}
	return false
}
