package central

import "qrdesk/app"

// Snapshot is one page of the deployment's state, for a desk that starts
// over (a new desk after the feed was compacted, or one silent too long).
type Snapshot = app.RemoteSnapshot

// CodeState is a code and what happened to it.
type CodeState = app.RemoteCodeState

// FeedAck is how far a station has read the feed, and when it said so.
type FeedAck struct{ Position, At int64 }
