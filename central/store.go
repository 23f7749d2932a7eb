package central

import (
	"context"

	"qrdesk/protocol"
)

// FeedReader is what the desks' download path reads: the change feed and
// the snapshot a desk starts over from. The Store reads its own database;
// serverdb.Replica reads a streaming read replica of it, which is only
// ever behind the primary, never different.
type FeedReader interface {
	// Changes returns the feed after the position after; ErrFeedCompacted
	// when changes after it were compacted away (the desk then starts over
	// from a Snapshot), ErrFeedReset when after is beyond every position
	// given (the database was restored). A read replica that has not
	// applied position after yet answers no changes: the desk waits.
	Changes(ctx context.Context, after int64, limit int) ([]protocol.Change, error)
	// SiteChanges is Changes for a desk of the site: only the changes to
	// that site's labels and the deployment-wide ones (the staff list).
	SiteChanges(ctx context.Context, site, after int64, limit int) ([]protocol.Change, error)
	// FeedTag returns the tag of the change at position pos (Change.Tag);
	// held is false when the feed has none there (compacted, or not
	// written yet).
	FeedTag(ctx context.Context, pos int64) (tag string, held bool, err error)
	// FeedBounds returns the feed's floor (positions up to it were
	// compacted away) and its head (the highest position given so far).
	FeedBounds(ctx context.Context) (floor, head int64, err error)
	// Snapshot returns the state of up to limit codes after the code id
	// afterID, the conflicts with them, and the feed position the state is
	// at least as new as.
	// Only the site's labels (site 0: every label), and on the first page
	// the other sites' labels the desk of station holds (its events on
	// them or on their entitlements, the labels it issued). position is, for a
	// later page (afterID > 0), the Position of the snapshot's first page
	// (0: not known, as a desk of an older release does not say): the page
	// is read where the state is at least that new.
	Snapshot(ctx context.Context, site int64, station string, afterID, position int64, limit int) (protocol.Snapshot, error)
}

// ReplicaStatus is what the server knows of its read replica
// (/readyz, /metrics).
type ReplicaStatus struct {
	// Up: the replica answered its last query; Error says why not.
	Up    bool   `json:"up"`
	Error string `json:"error,omitempty"`
	// Serving: feed reads go to it now (up and not too far behind).
	Serving bool `json:"serving"`
	// LagSeconds is how long the replica has lacked feed positions the
	// primary had placed (0 when it has every one); BehindPositions how
	// many it lacks; LagBytes the WAL the primary wrote that the replica
	// has not replayed (-1: not known).
	LagSeconds      float64 `json:"lag_seconds"`
	BehindPositions int64   `json:"behind_positions"`
	LagBytes        int64   `json:"lag_bytes"`
	// ReplayPaused: replay was paused on the replica (pg_wal_replay_pause).
	ReplayPaused bool `json:"replay_paused,omitempty"`
	// LastReplay is the primary's commit time (Unix seconds) of the last
	// transaction the replica replayed (pg_last_xact_replay_timestamp; 0:
	// none since it started).
	LastReplay int64 `json:"last_replay,omitempty"`
	// Reads counts this process's feed and snapshot reads by where they
	// were served: "replica", or "primary" and why ("primary_down",
	// "primary_lagging", "primary_behind": a snapshot page newer than
	// the replica, "primary_older_desk": a later snapshot page from a desk
	// that does not say its position). Behind counts the reads answered
	// with fewer changes because the replica lacked the desk's position.
	Reads  map[string]int64 `json:"reads"`
	Behind int64            `json:"behind_waits"`
}

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
	// CatchUpEpoch reports whether the station had not enrolled since the
	// server was last restored from a backup (its desk must send
	// everything again), and records that it has now.
	CatchUpEpoch(ctx context.Context, st Station) (bool, error)
	// SerialMarks returns the highest serial held for the station
	// letter, per label date and prefix, for label dates from from
	// (YYYY-MM-DD) on.
	SerialMarks(ctx context.Context, letter, from string) ([]protocol.SerialMark, error)
	// KeepHeldSerials keeps the highest serials a desk holds labels of
	// (protocol.EnrolRequest.Held): SerialMarks never answers below them.
	KeepHeldSerials(ctx context.Context, held []protocol.LetterSerialMark) error
	// SetDeskVersion records what the station's desk says it runs.
	SetDeskVersion(ctx context.Context, stationID int64, v DeskVersion) error
	// StationByToken finds a station by token: ErrUnauthorized when no
	// station has it, ErrRevoked when its station was revoked,
	// ErrTokenRenewed (the station set, but for its token) when its
	// station had it before its token was renewed. A station refused as
	// revoked or renewed is still told by Apply what it decided before.
	StationByToken(ctx context.Context, tokenHash string) (Station, error)
	// HoldsWrites reports whether each of the station's writes named is
	// the one the desk was given its number for (Key: an event of the
	// station with that number, or a batch whose first code is stored).
	HoldsWrites(ctx context.Context, st Station, checks []protocol.WriteCheck) (bool, error)
	// UploadBatch stores codes not stored yet and returns how many were new,
	// and the station's write number given to the last piece that added
	// codes (a number of its own when none did: a retry, named at the
	// desk's enrolments like any write). It may commit in pieces; a retry
	// of the same codes adds nothing twice.
	UploadBatch(ctx context.Context, st Station, codes []CodeIn, at int64) (added int, write int64, err error)
	// Apply applies events in order, each on its own. An event id already
	// applied with the same content returns its first result with Duplicate
	// set; with other content, an *EventReused error. ErrRevoked when the
	// station was revoked (it may come from a cache of token lookups): the
	// check is made with the events, so a revoked station changes nothing;
	// but a request all of whose events the station decided while its
	// token was valid is answered with those decisions, as duplicates.
	Apply(ctx context.Context, st Station, evs []protocol.Event, at int64) ([]protocol.Result, error)
	// The feed and the snapshot, read from this database (the primary).
	FeedReader
	// SiteInfo is what a desk of the station's site is told at its
	// enrolment: its site, the cross-site setting, the letters' sites.
	SiteInfo(ctx context.Context, st Station) (protocol.SiteInfo, error)
	// SiteMoveSeen records that the station's desk has started over
	// since its move to another site (Station.SiteFrom goes back to 0).
	SiteMoveSeen(ctx context.Context, stationID int64) error
	// LabelSite returns the site of a stored label and its expiry and
	// issue time; ok is false when the server has no such label.
	LabelSite(ctx context.Context, code string) (l LabelPlace, ok bool, err error)
	// AckFeed records how far stations (by id) have read the feed, so
	// Compact may drop what all have applied.
	AckFeed(ctx context.Context, acks map[int64]FeedAck) error
	// Compact drops the changes every active station has applied (stations
	// silent since before staleBefore do not hold it back: they start over
	// from a snapshot) and returns how many were dropped.
	Compact(ctx context.Context, staleBefore int64) (int64, error)
	// Conflicts lists the conflicts whose first redemption is in [from, to).
	Conflicts(ctx context.Context, from, to int64) ([]protocol.Conflict, error)
	// SetDeskStatus keeps a desk's report of a day, unless a report of
	// that day made later (by the desk's clock) is kept already.
	SetDeskStatus(ctx context.Context, s DeskStatus) error
	// Ping reports whether the database answers a query (readiness).
	Ping(ctx context.Context) error
	// BindLetterAtUpload binds letter to st, a station without one (from
	// the first release), at its first upload when no other station holds
	// it; it reports whether st has the letter now.
	BindLetterAtUpload(ctx context.Context, st Station, letter string) (bool, error)
	// ProbeWrite writes one row to see whether the database takes writes
	// (readiness); a refusal is a *WriteFailure.
	ProbeWrite(ctx context.Context, at int64) error
	Close() error
}
