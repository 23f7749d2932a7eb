// Package server is qrdesk-server: the central store of a deployment's
// codes that several stations sync with, over an HTTP+JSON API (/v1/…).
// The database decides every redemption with the same guarded UPDATE as a
// station; the server is stateless, so several processes can share one
// database.
package server

import (
	"context"
	"errors"

	"qrdesk/app"
)

// Station is an enrolled station.
type Station struct {
	ID        int64  `json:"-"`
	Name      string `json:"name"`
	CreatedAt int64  `json:"created_at"`
	RevokedAt int64  `json:"revoked_at,omitempty"`
}

// CodeIn is one code of an uploaded batch.
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

// Event is something that happened at a station: a redemption, a disable or
// an enable. EventID is unique per event, so sending it twice is a no-op.
// The wire format is the stations' own (app.RemoteEvent).
type Event = app.RemoteEvent

// Result is the server's answer to one event.
type Result = app.RemoteResult

// Change is one entry of the change feed.
type Change = app.RemoteChange

// Conflict is a code redeemed at two stations while offline.
type Conflict = app.Conflict

// Store is the central database (SQLite or PostgreSQL).
type Store interface {
	// RingID returns the deployment's key ring id ("" before the first enrolment).
	RingID(ctx context.Context) (string, error)
	// BindRing records the ring id if none is recorded and returns the recorded one.
	BindRing(ctx context.Context, id string) (string, error)
	AddStation(ctx context.Context, name, tokenHash string, at int64) error
	RevokeStation(ctx context.Context, name string, at int64) error
	Stations(ctx context.Context) ([]Station, error)
	// StationByToken finds an active station; ErrUnauthorized otherwise.
	StationByToken(ctx context.Context, tokenHash string) (Station, error)
	// UploadBatch stores codes not stored yet and returns how many were new.
	UploadBatch(ctx context.Context, st Station, codes []CodeIn, at int64) (int, error)
	// Apply applies events in order, each in its own transaction; an event
	// already applied returns its first result with Duplicate set.
	Apply(ctx context.Context, st Station, evs []Event, at int64) ([]Result, error)
	// Changes returns the feed after seq.
	Changes(ctx context.Context, after int64, limit int) ([]Change, error)
	// Conflicts lists the conflicts whose first redemption is in [from, to).
	Conflicts(ctx context.Context, from, to int64) ([]Conflict, error)
	Close() error
}

// Errors of the store.
var (
	ErrUnauthorized  = errors.New("unknown or revoked station token")
	ErrStationExists = errors.New("a station with this name exists")
	ErrNoStation     = errors.New("no such station")
)

// BadRequest is a refusal of invalid input, with the reason.
type BadRequest struct{ Reason string }

func (e *BadRequest) Error() string { return e.Reason }
