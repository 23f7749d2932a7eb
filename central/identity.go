package central

import "qrdesk/protocol"

// SameEvent reports whether ev is the event stored under its id, and if
// not, which field differs. An online attempt and the offline decision
// the desk made after it gave up waiting share one id and all of these
// fields; only Offline may differ. A redemption's reason is the desk's
// note, not part of the event.
func SameEvent(stored protocol.Event, storedStation string, ev protocol.Event, station string) (bool, string) {
	switch {
	case storedStation != station:
		return false, "station"
	case stored.Kind != ev.Kind:
		return false, "kind"
	case stored.Code != ev.Code:
		return false, "code"
	case stored.Operator != ev.Operator:
		return false, "operator"
	case stored.At != ev.At:
		return false, "time"
	case ev.Kind != protocol.KindRedeem && stored.Reason != ev.Reason:
		return false, "reason"
	case stored.Undoes != ev.Undoes:
		return false, "undone redemption"
	}
	return true, ""
}
