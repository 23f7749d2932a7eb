package central

import (
	"fmt"

	"qrdesk/app"
	"qrdesk/entitlement"
	"qrdesk/protocol"
)

// Flags is what the server notes about an event it did not take at its
// word, as a set of bits stored with the event (events.flags). Rules read
// the bits, never the wording: the wording (Note.Text) is stored beside
// them for people (the report, a label's history) and may be reworded
// freely.
type Flags int64

// The bits. Their values are stored: never renumber one.
const (
	// FlagClockAhead: the desk's time was ahead of the server's clock by
	// more than FutureTolerance; the event was decided at the server's time.
	FlagClockAhead Flags = 1
	// FlagClockBehind: the desk's time was before the label was issued;
	// the event was decided at the server's time.
	FlagClockBehind Flags = 2
	// FlagWhileDisabled: redeemed offline while the label was disabled at
	// the server.
	FlagWhileDisabled Flags = 4
	// FlagAfterExpiry: redeemed offline after the label's expiry.
	FlagAfterExpiry Flags = 8
	// FlagAfterClose: redeemed offline after its day was closed with the
	// unused labels expired (close-day --expire-unused at a desk).
	FlagAfterClose Flags = 16
	// FlagClockUnverified: the desk's time was corrected by a clock offset
	// the server cannot trust (measured too long before the event, or
	// "after" it: the desk's clock was set back since); the event was
	// decided at the corrected time, but never takes the record from
	// another desk's redemption.
	FlagClockUnverified Flags = 32
	// FlagRemovedStaff: done by an operator the deployment's staff list
	// had removed by the event's decided time (a desk offline had not
	// heard). A redemption decided offline stands (the parcel went out),
	// flagged; an online scan, an undo, a disable, an enable or a
	// replacement (a supervisor's) is refused, flagged (ByRemovedStaff,
	// RedeemOnlineByRemovedStaff, RefusedByRemovedStaff).
	FlagRemovedStaff Flags = 64

	// FlagsClock are the flags that set the desk's time aside.
	FlagsClock = FlagClockAhead | FlagClockBehind | FlagClockUnverified
)

// The wording of each flag (fmt formats). The server's migrations read
// the texts an older server stored only once, to set the bits of its
// events (serverdb/migrations/*: "desk clock ahead%", "desk clock behind%",
// "%redeemed offline while disabled: %", "%redeemed offline after its
// expiry %").
const (
	wordClockAhead    = "desk clock ahead: said %s, server received it at %s"
	wordClockBehind   = "desk clock behind: said %s, before the label was issued (%s)"
	wordWhileDisabled = "redeemed offline while disabled: %s"
	wordAfterExpiry   = "redeemed offline after its expiry %s"
	wordAfterClose    = "redeemed offline after its day was closed (expired %s)"
	wordUnverified    = "desk clock not verified: its offset from the server's (%s) was measured %s"
	wordRemovedStaff  = "by %s, removed from the staff list at %s"
)

// Has reports whether any of the flags g is set.
func (f Flags) Has(g Flags) bool { return f&g != 0 }

// Note is the flags of an event with their wording.
type Note struct {
	Flags Flags
	Text  string // the wordings of the flags, joined by "; "
}

// add sets a flag with its wording.
func (n Note) add(f Flags, text string) Note {
	if n.Text != "" {
		text = n.Text + "; " + text
	}
	return Note{Flags: n.Flags | f, Text: text}
}

// DecideTime is the time the server decides an event at, with the note
// that says why when it is not the desk's. Online, it is the server's clock
// (now). Offline, the desk's clock, unless that is not plausible: before
// the label was issued (issuedAt, see IssuedNotBefore), or ahead of the
// server's clock by more than FutureTolerance. Such a time is kept in the
// event row but flagged, and the server's clock is used instead, so a wrong
// desk clock can neither make its redemption the one of record nor file it
// under another day. The decided time is stored with the event
// (events.decided_at): the dashboard files a redemption under it.
//
// An event that carries the desk's measured clock offset (Event.ClockOffsetMS)
// is judged at the desk's time corrected by it (CorrectedTime): a desk 30
// minutes slow no longer redeems "before" an expiry it was past. A
// correction the server cannot trust is used but flagged
// (FlagClockUnverified).
func DecideTime(ev protocol.Event, issuedAt, now int64) (int64, Note) {
	if !ev.Offline {
		return now, Note{}
	}
	at, n := CorrectedTime(ev)
	switch {
	case at > now+FutureTolerance:
		return now, n.add(FlagClockAhead, fmt.Sprintf(wordClockAhead, formatAt(at), app.FormatTime(now)))
	case issuedAt > 0 && at < issuedAt-FutureTolerance:
		return now, n.add(FlagClockBehind, fmt.Sprintf(wordClockBehind, formatAt(at), app.FormatTime(issuedAt)))
	}
	return at, n
}

// Label is what the server holds of a label when it decides an event.
type Label struct {
	Status         string // unused, used, disabled (as stored)
	DisabledReason string
	ExpireAt       int64 // 0: never
	// ClosedAt is when a desk closed the label's day expiring it (status
	// expired; the desk's clock), 0 when it was not.
	ClosedAt int64
}

// TakenOffline adds to an offline redemption's note (from DecideTime) what
// the server notes when the redemption takes a label that was not unused
// for it: disabled (a label torn or reported stolen, the desk had not
// heard), or past its expiry at the decided time at. The redemption stands
// either way: the desk handed the parcel over.
func TakenOffline(n Note, l Label, at int64) Note {
	switch {
	case l.Status == string(app.StatusDisabled):
		return n.add(FlagWhileDisabled, fmt.Sprintf(wordWhileDisabled, l.DisabledReason))
	case l.ExpireAt != 0 && l.ExpireAt <= at:
		return n.add(FlagAfterExpiry, fmt.Sprintf(wordAfterExpiry, app.FormatTime(l.ExpireAt)))
	case l.Status == string(app.StatusExpired) && l.ClosedAt <= at:
		// A redemption made before the close reached the server is not
		// flagged: the label was unused when the parcel went out.
		return n.add(FlagAfterClose, fmt.Sprintf(wordAfterClose, app.FormatTime(l.ClosedAt)))
	}
	return n
}

// UndoRestores is the status an accepted undo leaves a label in, given the
// flags of the redemption it takes back and whether a close had expired
// the label at the server before that redemption reached it (closed): the
// undo takes back the redemption, not a disabling or a close the desk had
// not heard of, so a label redeemed offline while disabled goes back to
// disabled, one whose day was closed (FlagAfterClose, or closed) to
// expired; any other goes back to unused (one past its expiry time is
// refused by that time).
func UndoRestores(redemption Flags, closed bool) app.Status {
	switch {
	case redemption.Has(FlagWhileDisabled):
		return app.StatusDisabled
	case redemption.Has(FlagAfterClose) || closed:
		return app.StatusExpired
	}
	return app.StatusUnused
}

// RecordTakesOver reports whether an offline redemption at the decided
// time at, with the note n, becomes the redemption of record of a label
// already used at usedAt: only when it came first by a desk clock the
// server trusts.
func RecordTakesOver(n Note, at, usedAt int64) bool {
	return !n.Flags.Has(FlagsClock) && at < usedAt
}

// StaffRemovedAt is when the operator of an event at the decided time at
// had been removed from the deployment's staff list, given the list's
// members of that name (any case, removed ones too); 0 when one of them
// was current at at, or none was ever on the list (a desk without a staff
// list, the command line's --operator: nothing to judge). The server's
// removal time decides, not the desk's knowledge: a desk offline keeps
// the removed operator signed in until it syncs.
func StaffRemovedAt(members []protocol.StaffMember, at int64) int64 {
	var removed int64
	for _, m := range members {
		if m.CreatedAt <= at && (m.RemovedAt == 0 || m.RemovedAt > at) {
			return 0 // current then (a name removed and added again)
		}
		if m.RemovedAt != 0 && m.RemovedAt <= at {
			removed = max(removed, m.RemovedAt)
		}
	}
	return removed
}

// ByRemovedStaff adds FlagRemovedStaff to the note of a redemption by
// operator, removed from the staff list at removedAt (StaffRemovedAt; 0:
// not removed). The redemption stands: the desk handed the parcel over,
// and never losing that fact comes first; the flag puts it in front of the
// manager (the report, the dashboard's Conflicts page, the label's history
// at every desk).
func ByRemovedStaff(n Note, operator string, removedAt int64) Note {
	if removedAt == 0 {
		return n
	}
	return n.add(FlagRemovedStaff, fmt.Sprintf(wordRemovedStaff, operator, app.FormatTime(removedAt)))
}

// UndoByRemovedStaff is the refusal of an undo by supervisor, removed from
// the staff list at removedAt (0: not removed, the undo is decided as any
// other): RefusedByRemovedStaff of KindUndo. The label stays used (the desk
// puts its copy back and lists the refused undo).
func UndoByRemovedStaff(supervisor string, removedAt int64) (Note, string, bool) {
	return RefusedByRemovedStaff(protocol.KindUndo, supervisor, removedAt)
}

// RefusedByRemovedStaff is the refusal of a supervisor's action (kind:
// undo, disable, enable, replace, a close's expire) by supervisor, removed from the staff
// list at removedAt (StaffRemovedAt; 0: not removed, the event is decided
// as any other), with its note (FlagRemovedStaff) and the reason the desk
// shows. These are a supervisor's privileges, checked at the desk only
// against the list the desk last heard: someone removed is no supervisor,
// so the server refuses the action, flagged, and the label stays as the
// server has it (the desk's copy follows; a refused replacement's new
// label is void). Refusing loses nothing: no parcel went out, and a
// current supervisor can do it again. A redemption is not refused
// (ByRemovedStaff).
func RefusedByRemovedStaff(kind protocol.Kind, supervisor string, removedAt int64) (Note, string, bool) {
	if removedAt == 0 {
		return Note{}, "", false
	}
	n := Note{}.add(FlagRemovedStaff, fmt.Sprintf(wordRemovedStaff, supervisor, app.FormatTime(removedAt)))
	what, stays := "undo a redemption", "the label stays used; a current supervisor can undo it"
	switch kind {
	case protocol.KindDisable:
		what, stays = "disable a label", "the label stays as the server has it; a current supervisor can disable it"
	case protocol.KindEnable:
		what, stays = "enable a label", "the label stays disabled; a current supervisor can enable it"
	case protocol.KindReplace:
		what, stays = "replace a label", "the old label stays as the server has it; a current supervisor can replace it"
	case protocol.KindExpire:
		what, stays = "expire a closed day's labels", "the label stays as the server has it; a current supervisor can close the day again"
	}
	return n, fmt.Sprintf("%s was removed from the staff list at %s and can no longer %s: %s", supervisor, app.FormatTime(removedAt), what, stays), true
}

// RedeemOnlineByRemovedStaff is the refusal of an online scan by
// operator, removed from the staff list at removedAt (StaffRemovedAt at the
// server's time; 0: not removed, the scan is decided as any other), with
// its note (FlagRemovedStaff) and the reason the desk shows. Online, the
// server decides before the parcel goes: nothing has been handed over yet,
// so someone removed redeems nothing, and the refusal is recorded, flagged,
// for the manager. Offline the desk decided alone and the redemption
// stands, flagged (ByRemovedStaff).
func RedeemOnlineByRemovedStaff(operator string, removedAt int64) (Note, string, bool) {
	if removedAt == 0 {
		return Note{}, "", false
	}
	n := Note{}.add(FlagRemovedStaff, fmt.Sprintf(wordRemovedStaff, operator, app.FormatTime(removedAt)))
	return n, fmt.Sprintf("%s was removed from the staff list at %s and can no longer redeem a label: sign in as a current operator", operator, app.FormatTime(removedAt)), true
}

// ReplaceByRemovedStaff is the verdict on a replacement by supervisor,
// removed from the staff list at removedAt (0: not removed, v stands),
// given the verdict v it would have otherwise (entitlement.DecideReplace), with its
// note: refused (RefusedByRemovedStaff), its new label void as that of a
// replacement refused for any other reason, so the desk that printed it
// cannot hand a parcel over on it and the old label stays as it was. A
// replacement that came after a use stays the conflict it is (the double
// use is a fact), flagged.
func ReplaceByRemovedStaff(v entitlement.ReplaceVerdict, supervisor string, removedAt int64) (entitlement.ReplaceVerdict, Note) {
	n, why, refused := RefusedByRemovedStaff(protocol.KindReplace, supervisor, removedAt)
	if !refused || v.Outcome == protocol.OutcomeConflict {
		return v, n
	}
	return entitlement.ReplaceVerdict{Outcome: protocol.OutcomeRejected, Void: true, VoidReason: "void: " + why}, n
}

// MarkTakenBack sets TakenBack on every redemption of evs (one desk's
// request) that an undo later in evs takes back (its Undoes names it, on
// the same label). Such a pair is one fact: the parcel went out and came
// back. A desk sends them together when it sends everything again to a
// server restored from a backup that lost both; by then another desk may
// have used the label, and the redemption, handed back before that, is no
// second use of it (RedemptionTakenBack).
func MarkTakenBack(evs []protocol.Event) []protocol.Event {
	undone := map[string]string{} // redemption id → label, of the undos in evs
	for _, ev := range evs {
		if ev.Kind == protocol.KindUndo && ev.Undoes != "" {
			undone[ev.Undoes] = ev.Code
		}
	}
	if len(undone) == 0 {
		return evs
	}
	out := make([]protocol.Event, len(evs))
	copy(out, evs)
	seen := map[string]bool{}
	for i := len(out) - 1; i >= 0; i-- {
		ev := &out[i]
		switch {
		case ev.Kind == protocol.KindUndo && ev.Undoes != "":
			seen[ev.Undoes] = true
		case ev.Kind == protocol.KindRedeem && seen[ev.EventID] && undone[ev.EventID] == ev.Code:
			ev.TakenBack = true
		}
	}
	return out
}
