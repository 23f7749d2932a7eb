package central

import (
	"errors"
	"fmt"
)

// Errors of the store.
var (
	ErrUnauthorized = errors.New("unknown station token")
	ErrRevoked      = errors.New("this station was revoked")
	// ErrTokenRenewed: the token is one its station had before the
	// administrator renewed it ('station renew'): the desk needs the new one.
	ErrTokenRenewed   = errors.New("this station's token was renewed")
	ErrStationExists  = errors.New("a station with this name exists")
	ErrNoStation      = errors.New("no such station")
	ErrAlreadyRevoked = errors.New("this station is revoked already ('station renew NAME' gives it a new token)")
	// ErrFeedCompacted: the changes after the desk's cursor were compacted
	// away; it starts over from a snapshot.
	ErrFeedCompacted = errors.New("the change feed was compacted past this desk's position: start over from a snapshot")
	// ErrFeedReset: the desk's cursor is ahead of every position the feed
	// ever gave (the server's database was restored or replaced): the desk
	// starts over from a snapshot and sends its batches and events again.
	ErrFeedReset = errors.New("this desk's feed position is ahead of the server's feed (its database was restored or replaced): start over from a snapshot and send everything again")
)

// BadRequest is a refusal of invalid input, with the reason.
type BadRequest struct{ Reason string }

func (e *BadRequest) Error() string { return e.Reason }

// Badf is a BadRequest with a formatted reason.
func Badf(format string, args ...any) error {
	return &BadRequest{Reason: fmt.Sprintf(format, args...)}
}

// LetterTaken refuses a station letter that another station holds.
type LetterTaken struct{ Letter, Holder string }

func (e *LetterTaken) Error() string {
	return fmt.Sprintf("station letter %s belongs to station %q: give each desk its own letter", e.Letter, e.Holder)
}

// EventReused refuses an event id sent again with other content: an id
// names one event, forever.
type EventReused struct {
	EventID string
	What    string // what differs
	// Taken: the id is another station's event. A desk's ids are random,
	// so that one was shown it by the feed and sent first (a server
	// restored from a backup, a misbehaving desk): the desk sends its
	// event again under a new id (app.ServerRefusal.IDTaken).
	Taken bool
}

func (e *EventReused) Error() string {
	if e.Taken {
		return fmt.Sprintf("event id %s is another desk's event here: send this event again under a new id", e.EventID)
	}
	return fmt.Sprintf("event %s was sent before with another %s: an event id names one event; send a new id for a new event", e.EventID, e.What)
}

// WriteFailure is the server's database failing a write it should take: it
// is read-only, its disk is full, its role may not write. Reason says so in
// words an administrator can act on; Err is the driver's error, for the
// log. The desk treats it as no answer (it decides alone) but says which.
type WriteFailure struct {
	Reason string
	// Cause is Reason in one word, the metrics' label: read_only,
	// disk_full, no_permission, disk_error or other ("": other).
	Cause string
	Err   error
}

// The causes of a WriteFailure (its Cause).
const (
	WriteReadOnly     = "read_only"
	WriteDiskFull     = "disk_full"
	WriteNoPermission = "no_permission"
	WriteDiskError    = "disk_error"
	WriteOther        = "other"
)

func (e *WriteFailure) Error() string { return "the server's database cannot take writes: " + e.Reason }
func (e *WriteFailure) Unwrap() error { return e.Err }
