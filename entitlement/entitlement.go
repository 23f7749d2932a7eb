// Package entitlement holds the rules of a replacement: one entitlement
// (one parcel) behind a label and the labels that replace it. Both sides
// decide by them, the server (serverdb) and a desk (store), so the package
// is a leaf of the domain: it imports the desk's domain (app) and the
// protocol, nothing of the server.
package entitlement

import (
	"fmt"

	"qrdesk/app"
	"qrdesk/protocol"
)

// A replacement links two labels into one entitlement: the label replaced
// (X) and the one that replaces it (Y), and a replacement of Y (Z) after
// them. One entitlement is one parcel: a use of two of its labels, in
// either order, at any desks, online or offline, is a double use. These
// are the rules, stated once; the server's database (serverdb) and the
// desk's (store) only store what they decide.
//
// An entitlement is named by its root label's code: the first label of the
// chain. A label never replaced belongs to no entitlement (""), so the
// common path of a redemption never looks further than its own row.

// Root is the entitlement a replacement of code links it into: the one code
// already belongs to (entitlement), or code itself when it was never
// replaced.
func Root(code, entitlement string) string {
	if entitlement != "" {
		return entitlement
	}
	return code
}

// Sibling is another label of the same entitlement, as a database holds it.
type Sibling struct {
	Code         string
	Status       app.Status
	UsedAt       int64
	UsedStation  string
	UsedOperator string
	UsedEvent    string
	// LabelDate is the label's day (YYYY-MM-DD), the day a close expires.
	LabelDate string
	// Reason is a disabled label's reason, for the clerk only: no rule
	// reads it.
	Reason string
}

// UsedSibling returns the label among others (the other labels of an
// entitlement) that was used, if any: a use of it and of another label of
// the entitlement is a double use. Of several, the earliest use.
func UsedSibling(others []Sibling) (Sibling, bool) {
	var used Sibling
	found := false
	for _, s := range others {
		if s.Status == app.StatusUsed && (!found || s.UsedAt < used.UsedAt) {
			used, found = s, true
		}
	}
	return used, found
}

// SiblingUsedReason is what a clerk reads when code is refused (online, or
// at a desk that knows) because another label of its entitlement was used.
func SiblingUsedReason(code string, used Sibling) string {
	return fmt.Sprintf("%s and %s are one entitlement (a replacement): %s was already used at %s at %s (%s)",
		code, used.Code, used.Code, app.FormatTime(used.UsedAt), used.UsedStation, used.UsedOperator)
}

// ConflictReason explains a double use of two labels of one
// entitlement: the parcel went out for both.
func ConflictReason(first, second string) string {
	return fmt.Sprintf("%s and %s are one entitlement (a replacement) and both were used while the desks could not all reach the server", first, second)
}

// OneValid says why code may not become valid (an enable, or a new
// replacement of it): at most one label of an entitlement is valid or
// used; the others are disabled (or expired). nil when none of others is.
func OneValid(code string, others []Sibling) error {
	for _, s := range others {
		switch s.Status {
		case app.StatusUnused:
			return refusef("%s and %s are one entitlement (a replacement) and %s is valid: a second valid label would let one parcel go out twice; disable %s first, or replace %s instead", code, s.Code, s.Code, s.Code, s.Code)
		case app.StatusUsed:
			return refusef("%s and %s are one entitlement (a replacement) and %s was used at %s at %s: the parcel went out already", code, s.Code, s.Code, app.FormatTime(s.UsedAt), s.UsedStation)
		}
	}
	return nil
}

// ReplaceVerdict is what the server does with a replacement of a label
// whose status at the server is old, given the other labels already in its
// entitlement (others, the new label not among them).
type ReplaceVerdict struct {
	// Outcome answers the replace event: OutcomeReplaced, OutcomeConflict
	// (the old label was used: the replacement came too late) or
	// OutcomeRejected (another label of the entitlement is valid already,
	// or the old label expired).
	Outcome protocol.Outcome
	// DisableOld: the old label becomes disabled "replaced by NEW" (it was
	// unused or disabled).
	DisableOld bool
	// Void: the new label must not be a second valid label: it is disabled
	// with VoidReason.
	Void       bool
	VoidReason string
	// Used is the label already used, for the conflict (Outcome conflict).
	Used Sibling
}

// DecideReplace decides a replacement of old (its status and use at the
// server) by newCode. A replacement that reaches the server after old was
// used elsewhere (the desk that replaced it had not heard) is the same
// double use as two redemptions: a conflict naming both labels, and the new
// label void, so it cannot become a second valid label.
func DecideReplace(old Sibling, newCode string, others []Sibling) ReplaceVerdict {
	if old.Status == app.StatusUsed {
		return ReplaceVerdict{Outcome: protocol.OutcomeConflict, Void: true, Used: old,
			VoidReason: fmt.Sprintf("void: it replaces %s, which was already used at %s at %s", old.Code, app.FormatTime(old.UsedAt), old.UsedStation)}
	}
	if used, ok := UsedSibling(others); ok {
		return ReplaceVerdict{Outcome: protocol.OutcomeConflict, Void: true, Used: used,
			VoidReason: fmt.Sprintf("void: it replaces %s, whose entitlement was already used (%s at %s at %s)", old.Code, used.Code, app.FormatTime(used.UsedAt), used.UsedStation)}
	}
	if old.Status == app.StatusExpired {
		return ReplaceVerdict{Outcome: protocol.OutcomeRejected, Void: true, VoidReason: fmt.Sprintf("void: it replaces %s, which had expired", old.Code)}
	}
	for _, s := range others {
		if s.Status == app.StatusUnused && s.Code != newCode {
			return ReplaceVerdict{Outcome: protocol.OutcomeRejected, Void: true,
				VoidReason: fmt.Sprintf("void: %s was already replaced by %s, which is valid", old.Code, s.Code)}
		}
	}
	if old.Status == app.StatusDisabled {
		// A replacement of a disabled label would be an enable by another
		// name, without the supervisor an enable needs.
		return ReplaceVerdict{Outcome: protocol.OutcomeRejected, Void: true,
			VoidReason: fmt.Sprintf("void: it replaces %s, which is disabled at the server (%s): enable it first (supervisor), then replace it", old.Code, old.Reason)}
	}
	return ReplaceVerdict{Outcome: protocol.OutcomeReplaced, DisableOld: true}
}

// ExistingNew is a replace event's new label that the server already
// holds (its batch arrived first, or it is another label altogether).
type ExistingNew struct {
	Code        string
	Status      app.Status
	Entitlement string // its root label's code; "" never linked
	IssuedBy    string // the station whose batch upload brought it
	CreatedAt   int64
	Redeemed    bool // a redemption of it was ever recorded
}

// IssueSlack is how far a replacement's new label's issue time may lie
// from the time its batch upload gave it (the same desk's clock: equal in
// practice).
const IssueSlack = 120

// CheckExistingNew says why a replace event of station by root's
// entitlement may not take the label n, which the server already holds,
// as its new label: only a label fresh from that desk's own batch upload
// is one (unused, never linked nor redeemed, issued by the same station at
// the replacement's issue time createdAt). A label of the old one's own
// entitlement would close a cycle; any other would link two parcels into
// one, or revive a label that was used or disabled.
func CheckExistingNew(station, root string, createdAt int64, n ExistingNew) error {
	switch {
	case n.Entitlement != "" && n.Entitlement == root:
		return refusef("new label %s is already a label of this entitlement (%s): a replacement cannot close a cycle", n.Code, root)
	case n.Entitlement != "":
		return refusef("new label %s belongs to another entitlement (%s): a replacement must be a fresh label", n.Code, n.Entitlement)
	case n.Status != app.StatusUnused || n.Redeemed:
		return refusef("new label %s is %s at the server: a replacement must be a fresh label", n.Code, n.Status)
	case n.IssuedBy != station || n.CreatedAt < createdAt-IssueSlack || n.CreatedAt > createdAt+IssueSlack:
		return refusef("new label %s was issued by %s at %s, not by %s at the replacement (%s): a replacement must be a fresh label",
			n.Code, n.IssuedBy, app.FormatTime(n.CreatedAt), station, app.FormatTime(createdAt))
	}
	return nil
}

// ExpireTarget is the label a close's expiry of old (one of the closed
// day's labels, unused where the day was closed) expires at the server:
// old itself while it is unused; when old is no longer valid (replaced)
// and its entitlement holds a valid label of the same label day, that
// label: the parcel of the day is what expires. ok is false when nothing
// expires (old was used, or disabled with no valid label of its day left).
func ExpireTarget(old Sibling, others []Sibling) (target string, ok bool) {
	switch old.Status {
	case app.StatusUnused:
		return old.Code, true
	case app.StatusDisabled:
		for _, s := range others {
			if s.Status == app.StatusUnused && s.LabelDate == old.LabelDate {
				return s.Code, true
			}
		}
	}
	return "", false
}

// Refusal is a rule's "no" (OneValid, CheckExistingNew), with the reason a
// clerk reads: the server answers the event rejected with it, a desk
// refuses the action with it.
type Refusal struct{ Reason string }

func (e *Refusal) Error() string { return e.Reason }

func refusef(format string, args ...any) error {
	return &Refusal{Reason: fmt.Sprintf(format, args...)}
}

// ReplacedReason is the disabled reason of a replaced label.
func ReplacedReason(newCode string) string { return "replaced by " + newCode }
