package app

import (
	"context"
	"io"
)

// The persistence qrdesk needs is split by use into small interfaces; the
// SQLite implementation in package store provides all of them. Every
// method that changes state does it in one transaction.

// SettingsStore keeps the station's settings.
type SettingsStore interface {
	// LoadSettings returns the stored settings (defaults for unset keys).
	LoadSettings(ctx context.Context) (Settings, error)
	// SaveSettings stores s and writes one audit row per changed key.
	SaveSettings(ctx context.Context, s Settings, actor Actor) error
}

// IssueStore creates batches of codes.
type IssueStore interface {
	// IssueBatch creates a batch of spec.Count codes in one transaction: all
	// or nothing. Serials continue after the highest serial already issued
	// for the same prefix, label date and station; makeCode builds and signs
	// the code for one serial (serial is 0 when spec.Serial is false).
	IssueBatch(ctx context.Context, spec BatchSpec, makeCode func(serial int) (Code, error)) (Batch, []Code, error)
	// RestoredUnsynced returns when the database was restored from a
	// backup ('qrdesk restore') that no sync has followed yet; 0: none.
	RestoredUnsynced(ctx context.Context) (int64, error)
}

// ScanStore records scans.
type ScanStore interface {
	// Redeem marks c used with one conditional UPDATE (status unused and not
	// expired at a.At); exactly one changed row means redeemed. The redemption
	// row and the scan-log row are written in the same transaction. When no
	// row changed, the verdict says why (already used, expired, disabled,
	// unknown).
	Redeem(ctx context.Context, c Code, a Attempt) (Verdict, error)
	// LogScan records a refused attempt that never reached a code
	// (malformed, bad signature).
	LogScan(ctx context.Context, a Attempt, v Verdict) error
}

// CodeStore finds codes and changes their state.
type CodeStore interface {
	// Lookup returns the stored record of c, or ErrNotFound.
	Lookup(ctx context.Context, c Code) (CodeRecord, error)
	// SetDisabled disables (unused → disabled) or enables (disabled →
	// unused, or expired if its time passed) c and audits it.
	SetDisabled(ctx context.Context, c Code, disable bool, reason string, actor Actor) (CodeRecord, error)
	// Search returns codes matching q, newest first.
	Search(ctx context.Context, q SearchQuery) ([]CodeRecord, error)
	// CodeHistory returns the scan attempts and audit entries of one code,
	// oldest first.
	CodeHistory(ctx context.Context, codeID int64) ([]Event, error)
	// ExpireDue marks unused codes whose expiry passed as expired.
	ExpireDue(ctx context.Context, now int64) (int64, error)
	// ExpireWaiting reports whether an expiry of c by this desk's close
	// waits in the outbox (the server does not know of it yet).
	ExpireWaiting(ctx context.Context, c Code) (bool, error)
	// KeyIDCounts returns how many codes of the database each key id
	// signed (this desk's and those mirrored from the server).
	KeyIDCounts(ctx context.Context) (map[byte]int, error)
}

// BatchStore reads issued batches.
type BatchStore interface {
	// Batch returns one batch, or ErrNotFound.
	Batch(ctx context.Context, id int64) (Batch, error)
	// Batches lists the batches created in [from, to), newest first.
	Batches(ctx context.Context, from, to int64) ([]Batch, error)
	// BatchCodes returns the codes of a batch in serial order.
	BatchCodes(ctx context.Context, id int64) ([]CodeRecord, error)
	// EachBatchCode calls each with the printed form of every code of a
	// batch, in serial order, reading them from the database as it goes;
	// an error from each stops it and is returned.
	EachBatchCode(ctx context.Context, id int64, each func(code string) error) error
}

// FiguresStore counts a day's figures.
type FiguresStore interface {
	// Stats counts this desk's figures of [from, to) in Unix seconds
	// (station is its name: redemptions and undos made here); unused counts
	// the codes with label date day (YYYY-MM-DD). The caller names the day:
	// the store cannot tell which time zone from is midnight in.
	Stats(ctx context.Context, day, station string, from, to int64) (Stats, error)
	AllDesksStore
}

// ExportStore writes the data out.
type ExportStore interface {
	// ExportCodes writes the codes of a label day (or issued that day) as CSV.
	ExportCodes(ctx context.Context, q SearchQuery, w io.Writer) (int, error)
	// Backup writes a consistent copy of the database to path.
	Backup(ctx context.Context, path string) error
}

// Store is everything the Service needs: the small interfaces above, the
// print jobs (PrintStore), the sync with a central server (SyncStore),
// undoing (UndoStore), replacing (ReplaceStore) and closing the day
// (DayCloseStore). No use case finds a capability by type assertion.
type Store interface {
	SettingsStore
	IssueStore
	ScanStore
	CodeStore
	BatchStore
	FiguresStore
	RedemptionTimesStore
	ExportStore
	PrintStore
	SyncStore
	UndoStore
	ReplaceStore
	DayCloseStore
	OperatorStore // staff.go
}

// Actor is who did something, and where.
type Actor struct {
	Station  string
	Operator string
}

// Attempt is one scan: what was typed and by whom.
type Attempt struct {
	Actor
	TraceID string
	Raw     string // as typed; the store escapes and truncates it
	Code    string // normalised input (canonical form when it parsed)
	At      int64  // Unix seconds
	// ExpiryAt is the time expiry is judged at: At on the server's clock,
	// as this desk last measured its offset (clock.go); 0: At.
	ExpiryAt int64
	// AcceptUnknown: the central server is unreachable, so a correctly
	// signed code this station has never seen (issued at another desk) is
	// accepted and flagged; the server arbitrates when it is back.
	AcceptUnknown bool
	// ByServer: the central server decided this scan (its answer is
	// mirrored here); a scan without it was decided at this desk alone.
	ByServer bool
	// InARow: the desk's previous scan was this label and redeemed it (the
	// window knows the order of its scans): a repeat a moment later is
	// JustScanned, not a refusal.
	InARow bool
}

// BatchSpec describes a batch to issue.
type BatchSpec struct {
	Count     int
	LabelDate string // YYYY-MM-DD
	Prefix    string
	StationID string // station id letter ("" without serials)
	Serial    bool
	Type      string
	Ref       string
	ExpireAt  int64
	CreatedAt int64
	Actor
	// Progress, when set, is called every few thousand codes.
	Progress func(done, total int)
	// DropCodes: IssueBatch returns no codes, and keeps none in memory
	// (the caller reads the batch back: EachBatchCode).
	DropCodes bool
	// Order, when set, is the pickup order the batch is issued for (one
	// label per parcel): recorded with the batch, once (ErrOrderIssued).
	Order *OrderRow
}

// Batch is an issued batch.
type Batch struct {
	ID          int64  `json:"batch"`
	LabelDate   string `json:"date"`
	Count       int    `json:"count"`
	Type        string `json:"type,omitempty"`
	Ref         string `json:"ref,omitempty"`
	ExpireAt    int64  `json:"expire_at"`
	CreatedAt   int64  `json:"created_at"`
	FirstSerial int    `json:"first_serial,omitempty"`
	LastSerial  int    `json:"last_serial,omitempty"`
	Station     string `json:"station"`
	Operator    string `json:"operator"`
	Printed     int    `json:"printed"` // codes of the batch printed at least once
}

// CodeRecord is a stored code with its state.
type CodeRecord struct {
	ID             int64  `json:"-"`
	Code           string `json:"code"`
	BatchID        int64  `json:"batch"`
	LabelDate      string `json:"date,omitempty"`
	Serial         int    `json:"serial,omitempty"`
	Type           string `json:"type,omitempty"`
	Ref            string `json:"ref,omitempty"`
	KeyID          string `json:"key_id"`
	Status         Status `json:"status"`
	ExpireAt       int64  `json:"expire_at"`
	CreatedAt      int64  `json:"created_at"`
	UsedAt         int64  `json:"used_at,omitempty"`
	UsedStation    string `json:"used_station,omitempty"`
	UsedOperator   string `json:"used_operator,omitempty"`
	DisabledReason string `json:"disabled_reason,omitempty"`
	PrintCount     int    `json:"print_count"`
	// EntitlementUsed is, for an unused label, another label of its
	// entitlement (a replacement) this desk knows was used: a scan of this
	// one is refused as already used.
	EntitlementUsed string `json:"entitlement_used,omitempty"`
}

// SearchQuery filters codes. Text matches a full code, part of the random
// part, a serial or a ref.
type SearchQuery struct {
	Text      string
	Exact     *Code // set by the service when Text is a whole valid code
	Status    Status
	LabelDate string
	BatchID   int64
	Limit     int
	Offset    int
	Oldest    bool // oldest first (print order) instead of newest first
}

// Event is one line of a code's history.
type Event struct {
	At       int64  `json:"at"`
	Kind     string `json:"kind"` // scan outcome, or disable/enable
	Station  string `json:"station"`
	Operator string `json:"operator"`
	Detail   string `json:"detail,omitempty"`
}

// Stats are one day's figures.
type Stats struct {
	Date string `json:"date"`
	// Issued counts the labels made that day, whatever their label date
	// (as the server's dashboard and the close of the day count them);
	// ForDay the labels of that day's date this desk issued, on any day:
	// the labels Unused counts, so "for the day" and "still unused" speak
	// of the same labels.
	Issued   int             `json:"issued"`
	ForDay   int             `json:"issued_for_day"`
	Printed  int             `json:"printed"`
	Scans    int             `json:"scans"`
	Redeemed int             `json:"redeemed"` // redemptions made here, undone ones left out
	Undone   int             `json:"undone"`   // redemptions undone here
	Refused  map[Outcome]int `json:"refused"`
	// JustScanned counts the labels scanned again a moment after this
	// desk redeemed them: neither redeemed nor refused.
	JustScanned int `json:"just_scanned"`
	Unused      int `json:"unused"` // of the labels ForDay counts, those still unused
	// AllDesks are every desk's figures as known at the last sync (Stats
	// of one day; nil in DailyFigures and before the first sync).
	AllDesks *AllDesks `json:"all_desks,omitempty"`
}

// ExpiryTime is the time the attempt's expiry is judged at.
func (a Attempt) ExpiryTime() int64 {
	if a.ExpiryAt != 0 {
		return a.ExpiryAt
	}
	return a.At
}
