package app

import "context"

// A desk's day figures are its own: what this desk issued, redeemed,
// refused and undid, the figures its row on the server's dashboard shows
// once it has synced. The other desks' figures, as this desk knows them at
// its last sync, come apart (AllDesks), never mixed into its own.

// AllDesks are a day's figures of every desk as this desk knows them from
// its last sync (SyncedAt): labels issued, redemptions standing (undone
// ones left out, a double use counted once), undos and double uses, and
// the issued and redeemed figures desk by desk.
type AllDesks struct {
	SyncedAt  int64        `json:"synced_at"`
	Issued    int          `json:"issued"`
	Redeemed  int          `json:"redeemed"`
	Undone    int          `json:"undone"`
	Conflicts int          `json:"conflicts"`
	Desks     []DeskCounts `json:"desks"` // by station name
}

// DeskCounts are one desk's figures within AllDesks.
type DeskCounts struct {
	Station  string `json:"station"`
	Issued   int    `json:"issued"`
	Redeemed int    `json:"redeemed"`
}

// AllDesksStore counts every desk's figures of a day as this desk knows them.
type AllDesksStore interface {
	// AllDesks counts [from, to); nil when this desk has never synced
	// (it knows no other desk's figures).
	AllDesks(ctx context.Context, from, to int64) (*AllDesks, error)
}

// allDesks counts every desk's figures of [from, to) for a page of this
// desk's own.
func (s *Service) allDesks(ctx context.Context, from, to int64) (*AllDesks, error) {
	return s.Store.AllDesks(ctx, from, to)
}
