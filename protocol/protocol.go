// Package protocol is the desk–server protocol: its version, the event
// kinds, the outcomes the server gives and the wire types. Both sides
// import it (the desk's app, the server's central); it imports nothing of
// qrdesk.
package protocol

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Kind is the kind of an event a desk sends (Event.Kind) or of a change
// the feed carries (Change.Kind). A server that does not know an event's
// kind answers OutcomeUnsupported (KnowsKind).
type Kind string

// Event kinds: what a desk sends (redeem … expire) and, with code and
// conflict, what the feed carries.
const (
	KindCode    Kind = "code"
	KindRedeem  Kind = "redeem"
	KindDisable Kind = "disable"
	KindEnable  Kind = "enable"
	// KindUndo takes back a redemption of the same desk (Event.Undoes).
	KindUndo Kind = "undo"
	// KindReplace is an event on the old label's code naming the new label
	// (Event.NewCode): the server links both into one entitlement, and a
	// use of both is a double use.
	KindReplace Kind = "replace"
	// KindExpire is the day's expiry of one unused label (close-day
	// --expire-unused).
	KindExpire   Kind = "expire"
	KindConflict Kind = "conflict"
	// KindStaff is a change of the deployment's staff list (staff.go): an
	// event a desk sends (Event.Staff, no code) and a feed change the
	// server sends (Change.Data: the StaffMember as it is now).
	KindStaff Kind = "staff"
)

// Outcome is the server's answer to one event (Result.Outcome).
type Outcome string

// Outcomes the server gives an event.
const (
	OutcomeRedeemed    Outcome = "redeemed"
	OutcomeAlreadyUsed Outcome = "already_used"
	OutcomeConflict    Outcome = "conflict"
	OutcomeDisabled    Outcome = "disabled"
	OutcomeEnabled     Outcome = "enabled"
	OutcomeExpired     Outcome = "expired"
	OutcomeUnknown     Outcome = "unknown"
	OutcomeRejected    Outcome = "rejected"
	OutcomeUndone      Outcome = "undone"
	OutcomeReplaced    Outcome = "replaced"
	// OutcomeNotExpired answers an expire of a label that is not unused
	// at the server (used, disabled or expired already), or that is not
	// the closing desk's to expire: nothing changed, and the desk's copy
	// follows the server (the answer's status, the feed).
	OutcomeNotExpired Outcome = "not_expired"
)

// Version is the version of the desk–server protocol this build speaks,
// sent both ways in the Header. 1: no header (before versions);
// 2: the enrol answer lists the kinds and the station's write number,
// answers carry write numbers, an unknown kind is "unsupported";
// 3 (ClockVersion): answers carry the server's clock (TimeHeader), events
// may carry the desk's clock offset (Event.ClockOffsetMS, ClockAge);
// 4 (RefVersion): a batch upload may carry each code's ref and batch
// (UploadCode.Ref, Batch), and the feed and snapshot carry the ref;
// 5 (SiteCloseVersion): a close's expiry may name the site the desk
// closed in (Event.Site), and an enrolment the serials the desk holds
// (EnrolRequest.Held);
// 6 (UndoWindowVersion, OrderVersion): an undo carries its desk's undo
// window (Event.UndoWindow), and the server judges it on its own clock; a
// batch upload may mark each label of a pickup order with its customer
// (UploadCode.Order), and the feed and snapshot carry the mark.
const Version = 6

// ClockVersion is the first version whose server reads the clock fields of
// an event: a desk sends them to no older server (one that refuses unknown
// fields would refuse the whole upload), e.g. during a rolling upgrade.
const ClockVersion = 3

// RefVersion is the first version whose server reads a batch upload's ref
// and batch fields: a desk sends them to no older server (it refuses
// unknown fields), and a desk of an older version reads the feed and
// snapshot as before (it ignores the ref).
const RefVersion = 4

// SiteCloseVersion is the first version whose server reads an expiry's
// site (Event.Site) and an enrolment's held serials (EnrolRequest.Held):
// a desk sends them to no older server.
const SiteCloseVersion = 5

// UndoWindowVersion is the first version whose server reads an undo's
// window (Event.UndoWindow): a desk sends it to no older server.
const UndoWindowVersion = 6

// OrderVersion is the first version whose server reads a batch upload's
// order mark (UploadCode.Order): a desk sends it to no older server, and a
// desk of an older version reads the feed and snapshot as before (it
// ignores the mark).
const OrderVersion = 6

// Header carries Version on every request and answer.
const Header = "Qrdesk-Protocol"

// OldestDesk is the oldest protocol of a desk this server serves. A
// protocol-1 desk (no Header) cannot be served safely: the server cannot
// tell which of its writes such a desk holds, so a restored server would
// lose what it acknowledged to the desk for good, and the desk drops the
// feed's kinds it does not know (replace, expire), keeping labels the
// deployment took out of use. Such a desk is refused (RefusedDeskTooOld)
// until it is upgraded, except its online redemptions during a roll-out
// (the server decides them: the first release redeems alone after any
// other answer; server/olddesks.go).
const OldestDesk = 2

// RefusedDeskTooOld is the code of the server's refusal (HTTP 426) of a
// desk older than OldestDesk: a refusal of the desk itself, so it decides
// nothing alone and its events wait.
const RefusedDeskTooOld = "desk_too_old"

// DeskTooOldReason is what a clerk reads at a desk the server refuses as
// too old.
const DeskTooOldReason = "this desk's qrdesk is older than the server: upgrade qrdesk on this desk"

// DeskVersion is the protocol a request's Header value names: 1 when
// there is none (a desk from before versions), 0 when it is not a
// protocol number.
func DeskVersion(header string) int {
	if header == "" {
		return 1
	}
	n, err := strconv.Atoi(header)
	if err != nil || n < 1 {
		return 0
	}
	return n
}

// TimeHeader carries the server's clock on every answer, in Unix
// milliseconds: a desk measures its clock's offset from it (app/clock.go).
// An older server sends none, and the desk measures nothing.
const TimeHeader = "Qrdesk-Time"

// RingHeader carries the desk's key-ring id on every request: the server
// refuses a desk whose ring is not the deployment's (wrong_key_ring).
const RingHeader = "X-Qrdesk-Key-Ring"

// ReleaseHeader carries a desk's release (qrdesk version) on every request,
// for the dashboard's Desks page; a server ignores what it does not read.
const ReleaseHeader = "Qrdesk-Release"

// OutcomeUnsupported is the server's answer to an event of a kind it does
// not know: the event is not recorded; the desk keeps it and sends it again
// once the server announces the kind.
const OutcomeUnsupported Outcome = "unsupported"

// UnsupportedReason is what a clerk reads about such an event.
const UnsupportedReason = "the server is older than this desk: upgrade qrdesk-server"

// HeldBehindReason is what a clerk reads about an event that waits behind
// an earlier event of the same label the server could not decide: the
// desk queued them in that order, and they are decided in that order.
const HeldBehindReason = "waits behind an earlier event of this label the server could not decide (it is older than this desk: upgrade qrdesk-server)"

// BaseKinds are the event kinds every server knows: a server that
// announces no kinds (one from before versions) is taken to know these.
var BaseKinds = []Kind{KindRedeem, KindDisable, KindEnable}

// Enrolment is the server's answer to a desk's enrolment.
type Enrolment struct {
	Station  string `json:"station"`
	Letter   string `json:"letter,omitempty"`
	KeyRing  string `json:"key_ring,omitempty"`
	Protocol int    `json:"protocol,omitempty"`
	// Kinds are the event kinds the server decides (nil: BaseKinds).
	Kinds []Kind `json:"kinds,omitempty"`
	// Writes is the station's write counter: the number of the last write
	// the server holds for this station (nil: a server before restore
	// detection).
	Writes *int64 `json:"writes,omitempty"`
	// Lost is set when a write the desk named at its enrolment (its
	// number and what it was given for, WriteCheck) is not the server's
	// write of that number: the server lost it (restored from a backup)
	// though its counter may have caught up since.
	Lost bool `json:"lost,omitempty"`
	// Checked is how many of the writes the desk named (EnrolRequest) the
	// server checked: all of them, or 0 from a server that checks only the
	// highest (named in the request's query).
	Checked int `json:"checked,omitempty"`
	// Sites is the deployment's sites as this desk needs them (nil from a
	// server before sites: the desk decides every label alone offline).
	Sites *SiteInfo `json:"sites,omitempty"`
	// Serials are the highest serials the server holds for the desk's
	// letter, per label date and prefix, for the label dates from the
	// day before yesterday on (nil from a server before them, or for a
	// desk without a letter): the desk never issues at or below them, so
	// a desk restored from its own backup does not issue its serials again.
	Serials []SerialMark `json:"serials,omitempty"`
}

// SerialMark is the highest serial the server holds for one station
// letter, label date and prefix (Enrolment.Serials).
type SerialMark struct {
	Date   string `json:"date"` // YYYY-MM-DD
	Prefix string `json:"prefix,omitempty"`
	Serial int    `json:"serial"`
}

// SiteInfo tells a desk its site and how to treat, offline, a label of
// another site (one it never downloaded: a desk follows only its own
// site's feed).
type SiteInfo struct {
	// Site is the name of the desk's site.
	Site string `json:"site"`
	// CrossSiteOffline is CrossSiteRefuse or CrossSiteDecide.
	CrossSiteOffline string `json:"cross_site_offline"`
	// Letters maps each station letter to its station's site name, so a
	// desk tells from a label's letter where it was issued.
	Letters map[string]string `json:"letters,omitempty"`
}

// What a desk does, offline, with a label of another site.
const (
	// CrossSiteDecide: redeem it alone (the signature verifies) and report
	// it; a double use becomes a conflict, as for any offline redemption.
	CrossSiteDecide = "decide"
	// CrossSiteRefuse: refuse it ("label of site X: ask the supervisor").
	CrossSiteRefuse = "refuse"
)

// WriteCheck is a write a desk names at its enrolment: a write number the
// server gave it and the key it was given for (an event id, or
// BatchWriteKey of a batch upload).
type WriteCheck struct {
	Number int64  `json:"number"`
	Key    string `json:"key"`
	// Outcome is the server's answer to the event the desk holds (none
	// for a batch, or from an older desk). A desk that sends its events
	// again after a restore gets the same numbers for the same events in
	// the same order, and a server restored once more, to a backup from
	// before the first restore, holds those numbers and events, decided
	// otherwise (the soak's PostgreSQL seed 108245740): only the answer
	// tells the two histories apart.
	Outcome Outcome `json:"outcome,omitempty"`
}

// EnrolRequest is what a desk sends at its enrolment: the writes it names
// so the server can say whether it still holds them (Enrolment.Lost). A
// desk names the highest write the server has confirmed holding and every
// write not confirmed yet (oldest first, at most MaxWriteChecks): a
// restore loses every write after the backup, so a lost write is either
// named or below a confirmed one that was lost with it.
type EnrolRequest struct {
	Writes []WriteCheck `json:"writes,omitempty"`
	// Held are the highest serials of the labels the desk holds, of every
	// letter (copies from the feed included), that a desk sends once it
	// found the server lost history (restored from a backup): the server
	// keeps them (max) and its serial marks for a letter never go below
	// them, so a desk restored too never issues its lost serials again.
	// Sent only to a server of SiteCloseVersion (5) or later, at most
	// MaxHeldMarks.
	Held []LetterSerialMark `json:"held,omitempty"`
}

// LetterSerialMark is a SerialMark of the station letter Letter.
type LetterSerialMark struct {
	Letter string `json:"letter"`
	SerialMark
}

// MaxHeldMarks is the most marks one enrolment carries (EnrolRequest.Held).
const MaxHeldMarks = 5000

// MaxWriteChecks is the most writes a desk names at one enrolment; the
// rest are named at its next.
const MaxWriteChecks = 1000

// BatchWriteKey is the key a desk keeps for the write number of a batch
// upload: the batch and its first code (the server checks the code).
func BatchWriteKey(batch int64, firstCode string) string {
	return fmt.Sprintf("batch %d from %s", batch, firstCode)
}

// BatchWriteCode is the first code a BatchWriteKey names ("" when key is
// an event id).
func BatchWriteCode(key string) string {
	if !strings.HasPrefix(key, "batch ") {
		return ""
	}
	_, code, _ := strings.Cut(key, " from ")
	return code
}

// KnowsKind reports whether a server that announced kinds decides kind.
func KnowsKind(kinds []Kind, kind Kind) bool {
	if len(kinds) == 0 {
		kinds = BaseKinds
	}
	return slices.Contains(kinds, kind)
}
