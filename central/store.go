package central

import "context"

// Store is the central database (SQLite or PostgreSQL).
type Store interface {
	// RingID returns the deployment's key ring id ("" before the first enrolment).
	RingID(ctx context.Context) (string, error)
	// BindRing records the ring id if none is recorded and returns the recorded one.
	BindRing(ctx context.Context, id string) (string, error)
	// ResetRing forgets the recorded ring id (the administrator's repair
	// after a wrong first enrolment); the next desk binds it again.
	ResetRing(ctx context.Context) error
	// AddStation enrols a desk; ErrStationExists or ErrLetterTaken.
	AddStation(ctx context.Context, st Station, tokenHash string) error
	// RenewStation gives a station a new token and lifts a revocation.
	RenewStation(ctx context.Context, name, tokenHash string) error
	RevokeStation(ctx context.Context, name string, at int64) error
	Stations(ctx context.Context) ([]Station, error)
	// StationByToken finds a station by token: ErrUnauthorized when no
	// station has it, ErrRevoked when its station was revoked.
	StationByToken(ctx context.Context, tokenHash string) (Station, error)
	// UploadBatch stores codes not stored yet and returns how many were new.
	// It may commit in pieces; a retry of the same codes adds nothing twice.
	UploadBatch(ctx context.Context, st Station, codes []CodeIn, at int64) (int, error)
	// Apply applies events in order, each on its own. An event id already
	// applied with the same content returns its first result with Duplicate
	// set; with other content, an *EventReused error.
	Apply(ctx context.Context, st Station, evs []Event, at int64) ([]Result, error)
	// Changes returns the feed after seq.
	Changes(ctx context.Context, after int64, limit int) ([]Change, error)
	// Conflicts lists the conflicts whose first redemption is in [from, to).
	Conflicts(ctx context.Context, from, to int64) ([]Conflict, error)
	Close() error
}
