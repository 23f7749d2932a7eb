package central

import (
	"fmt"

	"qrdesk/protocol"
)

// What a desk may change of the deployment's staff list (the deployment's
// setting, 'qrdesk-server operators desks'). A desk's staff event comes
// with the desk's token and nothing else the server can check: the
// supervisor who made it at the desk signed in there, with a badge or a
// PIN the server never sees. A token copied off a desk (its sync.json)
// therefore must not let anyone in as a supervisor: under the default,
// DeskStaffPickers, a desk adds pickers and sets their PINs, and renews
// badges and removes anyone (neither lets anyone in: a badge is printed
// with the key ring, which the token does not give), while a supervisor
// is added, and given a new PIN, by an administrator (the server's
// command line, the dashboard). The deployment's first supervisor may
// still come from a desk: while the list never held one, a desk's own
// supervisor joins it (a removal of every supervisor does not open the
// door again).
const (
	// DeskStaffPickers is the default (see above).
	DeskStaffPickers = "pickers"
	// DeskStaffAll takes every desk's staff change on its token: for a
	// deployment whose supervisors are managed at the desks, which trusts
	// every desk's token as much as its administrators.
	DeskStaffAll = "all"
	// DeskStaffNone refuses every desk's staff change: the list is the
	// administrators' alone.
	DeskStaffNone = "none"
)

// CheckDeskStaff validates the setting's value.
func CheckDeskStaff(v string) error {
	switch v {
	case DeskStaffPickers, DeskStaffAll, DeskStaffNone:
		return nil
	}
	return Badf("desk staff changes must be %s, %s or %s", DeskStaffPickers, DeskStaffAll, DeskStaffNone)
}

// DeskStaffRefusal says why the server refuses a desk's staff change
// under the deployment's rule, "" when it takes it. target is the current
// member of the change's name (nil: none); everSupervisor says whether the
// list ever held a supervisor (removed ones count).
func DeskStaffRefusal(rule string, ch protocol.StaffChange, target *protocol.StaffMember, everSupervisor bool) string {
	const how = "a desk's token alone cannot show who made the change; 'qrdesk-server operators desks all' takes such changes from every desk"
	switch rule {
	case DeskStaffAll:
		return ""
	case DeskStaffNone:
		return fmt.Sprintf("this deployment takes no staff change from a desk: an administrator makes it ('qrdesk-server operators %s %s', or the dashboard's Operators page)", ch.Action, ch.Name)
	}
	switch {
	case ch.Action == protocol.StaffAdd && ch.Supervisor && everSupervisor:
		return fmt.Sprintf("a supervisor is added by an administrator, not from a desk ('qrdesk-server operators add %s --supervisor', or the dashboard's Operators page): %s", ch.Name, how)
	case ch.Action == protocol.StaffSetPIN && target != nil && target.Supervisor:
		return fmt.Sprintf("a supervisor's new PIN is set by an administrator, not from a desk ('qrdesk-server operators set-pin %s', or the dashboard's Operators page): %s", ch.Name, how)
	}
	return ""
}
