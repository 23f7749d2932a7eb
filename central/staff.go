package central

import (
	"errors"

	"qrdesk/app"
	"qrdesk/internal/glyphs"
	"qrdesk/protocol"
)

// The deployment's staff list (protocol/staff.go) is the server's: a
// desk's change of it is an event of kind KindStaff the server decides
// against the list; the command line's and the dashboard's changes are
// the same changes, by an administrator. Every change goes to every desk
// through the feed as the member is now.

// Refusals of a staff change against the list (an event's are answered
// "rejected" with the text).
var (
	ErrStaffExists = errors.New("there is already a current operator of this name in the deployment's staff list: pick another name, or remove the old one first")
	ErrNoStaff     = errors.New("there is no current operator of this name in the deployment's staff list ('qrdesk-server operators list' shows them)")
)

// ValidateStaffChange checks a change's fields: a known action, a name
// as a desk accepts it, and the PIN only as a desk's argon2id hash (add
// and set-pin), never in clear.
func ValidateStaffChange(ch protocol.StaffChange) error {
	switch ch.Action {
	case protocol.StaffAdd, protocol.StaffSetPIN:
		if !app.ValidPINHash(ch.PINHash) {
			return Badf("staff: %s needs pin_hash, the PIN's salted argon2id hash as a desk makes it (never the PIN)", ch.Action)
		}
	case protocol.StaffRemove, protocol.StaffRenewBadge:
		if ch.PINHash != "" {
			return Badf("staff: pin_hash is only for add and set-pin")
		}
	default:
		return Badf("staff: action must be add, remove, renew-badge or set-pin")
	}
	if ch.Supervisor && ch.Action != protocol.StaffAdd {
		return Badf("staff: supervisor is only for add")
	}
	check := app.CheckOperatorName // a name stored before today's rules is still changed
	if ch.Action == protocol.StaffAdd {
		check = app.CheckNewOperatorName
	}
	if err := check(ch.Name); err != nil {
		return Badf("staff: %v", err)
	}
	if ch.Action == protocol.StaffAdd {
		// The name prints on the operator's badge, at every desk: added
		// on the dashboard or with 'qrdesk-server operators add', a name
		// the label fonts cannot print would fail at the badge sheet.
		if r, bad := glyphs.Unprintable(ch.Name); bad {
			return Badf("staff: %v", &app.UnprintableError{What: "name", Char: r})
		}
	}
	return nil
}

// RemovedStaffWork is an event by an operator the staff list had removed
// by its decided time (FlagRemovedStaff): a redemption the server took, or
// a supervisor's undo, disable, enable or replacement it refused. A desk offline had not heard of the removal; the
// manager should know (the dashboard lists them by the day they were
// decided at, the report with the flagged events).
type RemovedStaffWork struct {
	EventID   string           `json:"event_id"`
	Kind      protocol.Kind    `json:"kind"` // redeem; undo, disable, enable, replace
	Code      string           `json:"code"`
	Station   string           `json:"station"`
	Operator  string           `json:"operator"`
	DecidedAt int64            `json:"decided_at"` // on the server's clock (the desk's, corrected)
	Outcome   protocol.Outcome `json:"outcome"`    // redeemed, conflict; rejected for a supervisor's action (a replacement after a use: conflict)
	Flag      string           `json:"flag"`       // the flags' wording
	Site      string           `json:"site,omitempty"`
}
