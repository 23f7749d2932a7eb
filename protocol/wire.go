package protocol

// The wire types of the desk–server protocol: what a desk sends, what
// the server answers, the feed and the snapshot.

// Event is a change of a code's state sent to the central server.
type Event struct {
	EventID  string `json:"event_id"`
	Kind     Kind   `json:"kind"`
	Code     string `json:"code"`
	Operator string `json:"operator"`
	At       int64  `json:"at"`
	Offline  bool   `json:"offline"`
	Reason   string `json:"reason,omitempty"`
	// Undoes is the event id of the redemption an undo takes back.
	Undoes string `json:"undoes,omitempty"`
	// UndoWindow is, on an undo, the desk's undo window in seconds (its
	// undo_window setting when it sent the undo): the server refuses an
	// undo that comes later than that after the redemption by its own
	// clock (central.UndoTooLate). Sent only to a server of
	// UndoWindowVersion or later.
	UndoWindow int64 `json:"undo_window,omitempty"`
	// NewCode, NewExpireAt and NewCreatedAt are the label a replace event
	// (KindReplace, on the old label's code) links into the old one's
	// entitlement: the server stores it if its batch has not arrived.
	NewCode      string `json:"new_code,omitempty"`
	NewExpireAt  int64  `json:"new_expire_at,omitempty"`
	NewCreatedAt int64  `json:"new_created_at,omitempty"`
	// ClockOffsetMS is how far the server's clock was ahead of the desk's
	// (negative: behind) at the desk's last measurement before the event,
	// in milliseconds; nil when the desk had none (never online, or a desk
	// from before clock offsets). ClockAge is the desk's time from that
	// measurement to the event, in seconds. The server adds the offset to
	// At when it can trust it (central.DecideTime).
	ClockOffsetMS *int64 `json:"clock_offset_ms,omitempty"`
	ClockAge      int64  `json:"clock_age,omitempty"`
	// Staff is a staff event's change of the deployment's staff list
	// (KindStaff; its Code is empty).
	Staff *StaffChange `json:"staff,omitempty"`
	// Site is, on a close's expiry (KindExpire), the name of the site the
	// desk knew it was in when it closed its day: the server expires the
	// label only if it holds the desk in that site too ("": not known,
	// judged on the server's record alone). Sent only to a server of
	// SiteCloseVersion or later.
	Site string `json:"site,omitempty"`
	// OutboxID is the event's place in the desk's outbox (not sent).
	OutboxID int64 `json:"-"`
	// TakenBack is set by the server on a redemption whose undo comes in
	// the same request (central.MarkTakenBack; not sent).
	TakenBack bool `json:"-"`
}

// Result is the server's answer to one event.
type Result struct {
	EventID      string  `json:"event_id"`
	Outcome      Outcome `json:"outcome"`
	Duplicate    bool    `json:"duplicate,omitempty"`
	UsedAt       int64   `json:"used_at,omitempty"`
	UsedStation  string  `json:"used_station,omitempty"`
	UsedOperator string  `json:"used_operator,omitempty"`
	// UsedCode is the label that was used when it is not the event's: one
	// of the same entitlement (a label and its replacement).
	UsedCode string `json:"used_code,omitempty"`
	Reason   string `json:"reason,omitempty"`
	// Status is the label's status at the server after the event (unused,
	// used, disabled, expired); "" from an older server, or where the
	// server has nothing to say (an unknown label).
	Status string `json:"status,omitempty"`
	// Write is the server's write number for this desk's station given to
	// the event (0: not recorded); a duplicate carries the first number.
	Write int64 `json:"write,omitempty"`
	// Site is the name of the label's site when it is not the desk's (an
	// online answer about a label of another site); "" otherwise.
	Site string `json:"site,omitempty"`
	// LabelCreatedAt and LabelExpireAt are, in an answer about a label of
	// another site (a redemption, online or offline), when it was issued
	// and when it expires (0: never): the desk, which never downloaded
	// it, keeps them with its copy, so a later undo cannot leave it a copy
	// that never expires. 0 and 0 from an older server, and for a label
	// of the desk's site (its feed brings the label).
	LabelCreatedAt int64 `json:"label_created_at,omitempty"`
	LabelExpireAt  int64 `json:"label_expire_at,omitempty"`
}

// Change is one entry of the server's change feed.
type Change struct {
	Seq     int64  `json:"seq"`
	Kind    Kind   `json:"kind"`
	Code    string `json:"code"`
	Station string `json:"station"`
	Data    string `json:"data"`
	// Tag is the change's random tag (none from an older server): a desk
	// asks for the feed after a position with the tag of the change it
	// applied there, and a server that holds another change there (it was
	// restored from a backup) answers feed_reset.
	Tag string `json:"tag,omitempty"`
	// Site is the site the change goes to (the label's; 0: every site,
	// the staff list). The server's own: never sent.
	Site int64 `json:"-"`
}

// Conflict is a code redeemed at two stations while offline.
type Conflict struct {
	Code           string `json:"code"`
	FirstEvent     string `json:"first_event"`
	FirstStation   string `json:"first_station"`
	FirstOperator  string `json:"first_operator"`
	FirstAt        int64  `json:"first_at"`
	SecondEvent    string `json:"second_event"`
	SecondStation  string `json:"second_station"`
	SecondOperator string `json:"second_operator"`
	SecondAt       int64  `json:"second_at"`
	// Flag says why the server did not take a desk's word for its time.
	Flag string `json:"flag,omitempty"`
	// SecondCode is the label of the second use when it is not Code: the
	// other label of the same entitlement (a label and its replacement).
	SecondCode string `json:"second_code,omitempty"`
}

// UploadCode is one code of a batch sent to the server.
type UploadCode struct {
	Code      string `json:"code"`
	ExpireAt  int64  `json:"expire_at"`
	CreatedAt int64  `json:"created_at"`
	// Ref is the batch's reference, free text the clerk typed (at most
	// 200 characters on one line: app.CheckRef), and Batch the batch's number at the desk
	// that issued it: sent only to a server of RefVersion or later
	// (omitted when empty, so an older server never sees them).
	Ref   string `json:"ref,omitempty"`
	Batch int64  `json:"batch,omitempty"`
	// Replaces is, for a replacement's new label, the label it replaces
	// (RefVersion and later). The server stores such a label only from its
	// replace event, linked: uploaded alone after a restore lost that
	// event, it would be an ordinary label there, usable before the replace
	// came again and then refused (its new label no longer fresh), and the
	// old label's parcel could go out twice with no conflict (the soak's
	// PostgreSQL seed 663684397). The upload only completes its ref.
	Replaces string `json:"replaces,omitempty"`
	// Order marks a label issued for a pickup order (its Ref is the order
	// number): the other desks of the site name the order's customer and
	// the parcel when it is scanned. Sent only to a server of OrderVersion
	// or later.
	Order *OrderLabel `json:"order,omitempty"`
}

// OrderLabel marks a label of a pickup order (qrdesk orders import) in an
// upload, the feed (a code change's data "order") and the snapshot.
type OrderLabel struct {
	// Customer is the order's customer ("" when the file named none; at
	// most 80 characters on one line: app.MaxCustomerChars).
	Customer string `json:"customer"`
}

// Snapshot is one page of the central server's state, for a desk that
// starts over because the feed was compacted past its cursor.
type Snapshot struct {
	// Position is the feed position this state is at least as new as: the
	// desk follows the feed from there (changes after it are applied again,
	// harmlessly).
	Position int64 `json:"position"`
	// Check is the tag of the change at Position (Change.Tag; none
	// when it was compacted, or from an older server): the desk asks for
	// the feed after Position with it.
	Check string `json:"check,omitempty"`
	// Codes in the server's order; NextID asks for the next page (0: done).
	Codes     []CodeState `json:"codes"`
	NextID    int64       `json:"next_id"`
	Conflicts []Conflict  `json:"conflicts"`
	// Staff is the deployment's staff list, removed members too, on the
	// first page (nil from a server before staff lists, and on later
	// pages).
	Staff []StaffMember `json:"staff,omitempty"`
	// First is set by the desk on the first page it applies: the
	// conflicts it holds go (a restored server may not know a label one
	// names yet), and the pages bring the server's.
	First bool `json:"-"`
}

// CodeState is a code and what happened to it, as the server has it.
type CodeState struct {
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
	// Ref is the reference of the label's batch ("" for none, or from a
	// server before RefVersion).
	Ref string `json:"ref,omitempty"`
	// Order marks a label of a pickup order (nil for none, or from a
	// server before OrderVersion).
	Order *OrderLabel `json:"order,omitempty"`
}

// RefusedFeedCompacted is the server's answer when the changes after a
// desk's cursor were compacted away: the desk starts over from a snapshot.
const RefusedFeedCompacted = "feed_compacted"

// RefusedFeedReset is the server's answer when a desk's cursor is ahead of
// its feed (the server's database was restored or replaced): the desk
// starts over from a snapshot and sends its batches and events again.
const RefusedFeedReset = "feed_reset"
