package app

import "qrdesk/protocol"

// The desk's names for the protocol's wire types and constants (package
// protocol holds their one definition, shared with the server).
type (
	RemoteEvent     = protocol.Event
	RemoteResult    = protocol.Result
	RemoteChange    = protocol.Change
	Conflict        = protocol.Conflict
	UploadCode      = protocol.UploadCode
	RemoteSnapshot  = protocol.Snapshot
	RemoteCodeState = protocol.CodeState
	Enrolment       = protocol.Enrolment
)

const (
	Protocol             = protocol.Version
	ProtocolHeader       = protocol.Header
	OutcomeUnsupported   = protocol.OutcomeUnsupported
	UnsupportedReason    = protocol.UnsupportedReason
	HeldBehindReason     = protocol.HeldBehindReason
	RefusedFeedCompacted = protocol.RefusedFeedCompacted
	RefusedFeedReset     = protocol.RefusedFeedReset
	KindUndo             = protocol.KindUndo
	KindReplace          = protocol.KindReplace
	KindExpire           = protocol.KindExpire
)

// BaseKinds are the event kinds every server knows (protocol.BaseKinds).
var BaseKinds = protocol.BaseKinds

// KnowsKind reports whether a server that announced kinds decides kind.
func KnowsKind(kinds []string, kind string) bool { return protocol.KnowsKind(kinds, kind) }
