package app

import "errors"

// Codes of the server's refusals (the "code" of a 4xx answer).
const (
	RefusedUnknownToken = "unknown_token"  // no station has this token
	RefusedRevoked      = "revoked"        // the station was revoked
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
}

func (e *ServerRefusal) Error() string { return "the server refused: " + e.Message }

// AboutDesk reports whether the refusal is about the desk itself (its token
// or key ring), not one request's content: nothing this desk sends will be
// accepted until an administrator acts, so its events must wait, not be
// given up.
func (e *ServerRefusal) AboutDesk() bool {
	switch e.Code {
	case RefusedUnknownToken, RefusedRevoked, RefusedWrongRing:
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
