package central

import "qrdesk/protocol"

// Snapshot is one page of the deployment's state, for a desk that starts
// over (a new desk after the feed was compacted, or one silent too long).
type Snapshot = protocol.Snapshot

// CodeState is a code and what happened to it.
type CodeState = protocol.CodeState

// FeedAck is how far a station has read the feed, and when it said so.
type FeedAck struct{ Position, At int64 }
