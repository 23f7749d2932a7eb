package app

import (
	"errors"
	"fmt"

	"qrdesk/protocol"
)

// Codes of the server's refusals (the "code" of a 4xx answer).
const (
	RefusedUnknownToken = "unknown_token"  // no station has this token
	RefusedRevoked      = "revoked"        // the station was revoked
	RefusedTokenRenewed = "token_renewed"  // the desk's token was renewed: it needs the new one
	RefusedWrongRing    = "wrong_key_ring" // the desk's key ring is not the deployment's
	RefusedInvalid      = "invalid"        // the request's content was refused
	RefusedEventReused  = "event_reused"   // an event id sent before with other content
)

// ServerRefusal is the server's answer "no" (HTTP 4xx). It is an answer,
// not an outage: only when the server does not answer (no connection, a
// timeout, a 5xx) may a desk decide alone. After a refusal the desk shows
// why and redeems nothing alone.
type ServerRefusal struct {
	Status  int    // HTTP status
	Code    string // Refused…
	Message string // the server's explanation, for the clerk
	// IDTaken: an event_reused whose id another desk's event holds (a
	// server restored from a backup let it take an id the feed had shown):
	// the event is still this desk's, and goes again under a new id.
	IDTaken bool
}

func (e *ServerRefusal) Error() string { return "the server refused: " + e.Message }

// AboutDesk reports whether the refusal is about the desk itself (its token,
// key ring or protocol), not one request's content: nothing this desk sends
// will be accepted until an administrator acts, so its events must wait,
// not be given up.
func (e *ServerRefusal) AboutDesk() bool {
	switch e.Code {
	case RefusedUnknownToken, RefusedRevoked, RefusedTokenRenewed, RefusedWrongRing, protocol.RefusedDeskTooOld:
		return true
	}
	return e.Status == 401 || e.Status == 403
}

// AboutContent reports whether the server refused what was sent (a
// field, an event id reused): the one thing that may mark an event or a
// batch refused for good. Any other 4xx (a proxy's 404, a refusal of the
// desk itself) keeps it waiting.
func (e *ServerRefusal) AboutContent() bool {
	return e.Code == RefusedInvalid || e.Code == RefusedEventReused
}

// DeskRefusal returns the refusal about the desk itself in err, or nil.
func DeskRefusal(err error) *ServerRefusal {
	var sr *ServerRefusal
	if errors.As(err, &sr) && sr.AboutDesk() {
		return sr
	}
	return nil
}

// FailedDatabase is the code of the server's 503 when its database cannot
// take writes (read-only, disk full).
const FailedDatabase = "database"

// ServerFailure is the server answering with an error (HTTP 5xx, 408,
// 429) instead of a decision: its database refused a write, it is
// overloaded, a proxy in front of it failed. Like no answer it lets the
// desk decide alone (errors.Is(err, ErrTransient) holds), but the desk
// says the server answered with an error, and which, so the
// administrator looks at the server, not at the network.
type ServerFailure struct {
	Status  int    // HTTP status
	Code    string // FailedDatabase, "internal", or "" from a proxy
	Message string // the server's explanation ("" if it gave none)
}

func (e *ServerFailure) Error() string {
	msg := e.Message
	if msg == "" {
		msg = "no explanation"
	}
	return fmt.Sprintf("the server answered with an error (HTTP %d): %s", e.Status, msg)
}

// Is makes a ServerFailure ErrTransient: the desk decides alone.
func (e *ServerFailure) Is(target error) bool { return target == ErrTransient }

// ServerFailed returns the server's error answer in err, or nil.
func ServerFailed(err error) *ServerFailure {
	var sf *ServerFailure
	if errors.As(err, &sf) {
		return sf
	}
	return nil
}
