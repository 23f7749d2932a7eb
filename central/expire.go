package central

import "qrdesk/protocol"

// The day's expiry travels as one event per label (kind expire): the
// server expires a label only while it is unused there, so a label used
// meanwhile at another desk stays used, and every desk follows the server
// through the feed.
const (
	// KindExpire expires one unused label of a closed day (close-day
	// --expire-unused at a desk).
	KindExpire = protocol.KindExpire
	// OutcomeNotExpired answers an expire of a label that is not unused
	// at the server (used, disabled or expired already): nothing changed,
	// and the desk's copy follows the server through the feed.
	OutcomeNotExpired = protocol.OutcomeNotExpired
)
