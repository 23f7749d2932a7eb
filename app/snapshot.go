package app

// RemoteSnapshot is one page of the central server's state, for a desk that
// starts over because the feed was compacted past its cursor.
type RemoteSnapshot struct {
	// Position is the feed position this state is at least as new as: the
	// desk follows the feed from there (changes after it are applied again,
	// harmlessly).
	Position int64 `json:"position"`
	// Check is the tag of the change at Position (RemoteChange.Tag; none
	// when it was compacted, or from an older server): the desk asks for
	// the feed after Position with it.
	Check string `json:"check,omitempty"`
	// Codes in the server's order; NextID asks for the next page (0: done).
	Codes     []RemoteCodeState `json:"codes"`
	NextID    int64             `json:"next_id"`
	Conflicts []Conflict        `json:"conflicts"`
	// First is set by the desk on the first page it applies: the
	// conflicts it holds go (a restored server may not know a label one
	// names yet), and the pages bring the server's.
	First bool `json:"-"`
}

// RemoteCodeState is a code and what happened to it, as the server has it.
type RemoteCodeState struct {
	Code           string `json:"code"`
	IssuedBy       string `json:"issued_by"`
	Status         string `json:"status"`
	ExpireAt       int64  `json:"expire_at"`
	CreatedAt      int64  `json:"created_at"`
	UsedAt         int64  `json:"used_at,omitempty"`
	UsedStation    string `json:"used_station,omitempty"`
	UsedOperator   string `json:"used_operator,omitempty"`
	UsedEvent      string `json:"used_event,omitempty"`
	DisabledReason string `json:"disabled_reason,omitempty"`
	// Entitlement is the root label's code of a label linked by a
	// replacement ("" for a label never replaced).
	Entitlement string `json:"entitlement,omitempty"`
}

// RefusedFeedCompacted is the server's answer when the changes after a
// desk's cursor were compacted away: the desk starts over from a snapshot.
const RefusedFeedCompacted = "feed_compacted"

// RefusedFeedReset is the server's answer when a desk's cursor is ahead of
// its feed (the server's database was restored or replaced): the desk
// starts over from a snapshot and sends its batches and events again.
const RefusedFeedReset = "feed_reset"
