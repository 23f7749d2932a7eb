package protocol

import "fmt"

// The deployment's staff list: the operators who sign in at the desks of
// one deployment, kept by the server. A desk's change of it (an operator
// added, removed, a badge renewed, a PIN changed) is an event of kind
// KindStaff carrying a StaffChange; the server decides it against its
// list and every desk gets the member as it is now as a feed change of
// kind KindStaff (Change.Data: a StaffMember) or, starting over, in the
// snapshot's first page (Snapshot.Staff). A PIN travels only as the
// desk's salted argon2id hash, never in clear.

// Staff actions (StaffChange.Action).
const (
	StaffAdd        = "add"
	StaffRemove     = "remove"
	StaffRenewBadge = "renew-badge"
	StaffSetPIN     = "set-pin"
)

// OutcomeStaffChanged is the server's answer to a staff event it applied
// (one it refuses is rejected, with the reason).
const OutcomeStaffChanged Outcome = "staff_changed"

// StaffChange is what a staff event asks of the deployment's list.
type StaffChange struct {
	Action string `json:"action"`
	// Name is the operator's, any case (one current operator per name).
	Name       string `json:"name"`
	Supervisor bool   `json:"supervisor,omitempty"` // add
	// PINHash is the PIN's argon2id hash in PHC form (add, set-pin).
	PINHash string `json:"pin_hash,omitempty"`
}

// Summary is the change in words without the PIN's hash: the event's
// reason, so that the server's record of the event and a desk's resend
// of it are compared on it too (central.SameEvent).
func (c StaffChange) Summary() string {
	switch {
	case c.Action == StaffAdd && c.Supervisor:
		return fmt.Sprintf("add supervisor %s", c.Name)
	case c.Action == StaffAdd:
		return fmt.Sprintf("add operator %s", c.Name)
	}
	return fmt.Sprintf("%s %s", c.Action, c.Name)
}

// StaffMember is one member of the deployment's staff list as the server
// has it. ID is the deployment's (never reused); BadgeVersion is raised
// by every renewal; RemovedAt is 0 for a current member.
type StaffMember struct {
	ID           int64  `json:"id"`
	Name         string `json:"name"`
	Supervisor   bool   `json:"supervisor,omitempty"`
	BadgeVersion int    `json:"badge_version"`
	PINHash      string `json:"pin_hash"`
	CreatedAt    int64  `json:"created_at"`
	RemovedAt    int64  `json:"removed_at,omitempty"`
}
