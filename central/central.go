// Package central is the domain of qrdesk-server, the central store several
// desks sync with: its types, their validation, its errors and the store
// interface. The HTTP server and client (package server) and the SQL
// adapters (package store) both import it; it imports only the desk domain
// (package app), whose wire types it shares.
package central

import "qrdesk/app"

// Station is an enrolled desk. Letter is the station letter its codes carry
// ("" when the desk issues codes without one); no other desk may upload
// codes with it.
type Station struct {
	ID        int64  `json:"-"`
	Name      string `json:"name"`
	Letter    string `json:"letter,omitempty"`
	CreatedAt int64  `json:"created_at"`
	RevokedAt int64  `json:"revoked_at,omitempty"`
	// Writes is the station's write counter as StationByToken read it: the
	// number of the last write the server stored for it (restore detection).
	Writes int64 `json:"-"`
	// TokenHash is the hash of the token the station was found by
	// (StationByToken): Apply checks it is still the station's.
	TokenHash string `json:"-"`
}

// CodeIn is one code of an uploaded batch, with the fields parsed from it.
type CodeIn struct {
	Code      string `json:"code"`
	Random    string `json:"-"`
	Prefix    string `json:"-"`
	LabelDate string `json:"-"`
	StationID string `json:"-"`
	Serial    int    `json:"-"`
	ExpireAt  int64  `json:"expire_at"`
	CreatedAt int64  `json:"created_at"`
}

// Event is something that happened at a desk: a redemption, a disable or an
// enable. Its EventID is bound to its content (see SameEvent). The wire
// format is the desks' own.
type Event = app.RemoteEvent

// Result is the server's answer to one event.
type Result = app.RemoteResult

// Change is one entry of the change feed.
type Change = app.RemoteChange

// Conflict is a label redeemed at two desks while they could not both ask
// the server; both facts are kept.
type Conflict = app.Conflict

// Event kinds and outcomes the server gives.
const (
	KindRedeem  = "redeem"
	KindDisable = "disable"
	KindEnable  = "enable"
	// KindUndo takes back a redemption of the same desk (see Event.Undoes).
	KindUndo = "undo"
	// KindReplace links a new label (Event.NewCode) into the entitlement of
	// the old one and disables the old one (see entitlement.go).
	KindReplace = app.KindReplace

	OutcomeRedeemed    = "redeemed"
	OutcomeAlreadyUsed = "already_used"
	OutcomeConflict    = "conflict"
	OutcomeDisabled    = "disabled"
	OutcomeExpired     = "expired"
	OutcomeUnknown     = "unknown"
	OutcomeRejected    = "rejected"
	OutcomeUndone      = "undone"
	OutcomeReplaced    = "replaced"
	// OutcomeUnsupported: the server does not know the event's kind (it is
	// older than the desk); the event is not recorded and waits at the desk.
	OutcomeUnsupported = app.OutcomeUnsupported
)

// Kinds are the event kinds this server decides, in the order they were
// added; the enrol answer lists them (API.Kinds may name fewer, to play an
// older server in tests).
var Kinds = []string{KindRedeem, KindDisable, KindEnable, KindUndo, KindExpire, KindReplace}
