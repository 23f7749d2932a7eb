// Package webhook is the server's handovers out: the event it delivers for
// every decided fact about a label (a redemption, an undo, a replacement,
// a disable or enable, an expiry, a conflict), its signature, and the
// deliverer that posts them to the configured endpoints, at least once
// and in order, from the durable outbox the server's database keeps (the
// change feed, serverdb). It imports no package of qrdesk: a receiver
// written in Go can verify with Verify alone.
//
// docs/webhooks.md is the integrator's guide.
package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Event is one decided fact, as delivered (one POST's body) and exported
// (one line of 'qrdesk-server export').
type Event struct {
	// ID is stable: the same fact always has the same id, also when it
	// is delivered again (a retry, a restart, a server restored from a
	// backup that decides the desk's event again). A receiver keeps the
	// ids it has processed and ignores one it has.
	ID string `json:"id"`
	// Cursor is the event's position in the server's feed: 'export
	// --since CURSOR' continues after it.
	Cursor int64 `json:"cursor"`
	// Type: redeem, undo, disable, enable, expire, replace or conflict.
	Type string `json:"type"`
	// Label is the label's code; OrderRef its batch's ref ('' when none).
	Label    string `json:"label"`
	OrderRef string `json:"order_ref"`
	// Desk is the station that sent the event, Site the label's site.
	Desk     string `json:"desk"`
	Site     string `json:"site"`
	Operator string `json:"operator"`
	// HappenedAt is when it happened at the desk (its clock, as the server
	// took it); DecidedAt when the server decided it (RFC 3339, UTC; ''
	// when not known).
	HappenedAt string `json:"happened_at,omitempty"`
	DecidedAt  string `json:"decided_at,omitempty"`
	// Status is the label's status after the event (used, unused,
	// disabled, expired).
	Status string `json:"status,omitempty"`
	// Reason: the desk's reason (undo, disable, expire, replace) or the
	// server's note (a redemption it did not take at the desk's word).
	Reason string `json:"reason,omitempty"`
	// DeskEvent is the desk's own id of the event.
	DeskEvent string `json:"desk_event,omitempty"`
	// NewLabel is the replacement (type replace).
	NewLabel string `json:"new_label,omitempty"`
	// Conflict is the two uses of one label (type conflict).
	Conflict *Conflict `json:"conflict,omitempty"`
}

// Conflict is a label used twice while the desks could not reach the
// server: First is the redemption of record.
type Conflict struct {
	First  Use `json:"first"`
	Second Use `json:"second"`
}

// Use is one use of a label in a conflict.
type Use struct {
	Label     string `json:"label"`
	Desk      string `json:"desk"`
	Operator  string `json:"operator"`
	At        string `json:"at"`
	DeskEvent string `json:"desk_event"`
}

// Types are the event types delivered.
var Types = []string{"redeem", "undo", "disable", "enable", "expire", "replace", "conflict"}

// Delivered reports whether a feed change of this kind is delivered.
func Delivered(kind string) bool {
	for _, t := range Types {
		if t == kind {
			return true
		}
	}
	return false
}

// EventID is the stable id of a fact: its type, its label and the desk
// events it decided (one, or the two uses of a conflict).
func EventID(kind, label string, deskEvents ...string) string {
	sum := sha256.Sum256([]byte(kind + "\x00" + label + "\x00" + strings.Join(deskEvents, "\x00")))
	return "evt_" + hex.EncodeToString(sum[:12])
}

// Time formats a Unix time for an event (” for 0: not known).
func Time(unix int64) string {
	if unix == 0 {
		return ""
	}
	return time.Unix(unix, 0).UTC().Format(time.RFC3339)
}

// The headers of a delivery.
const (
	HeaderTimestamp = "Qrdesk-Timestamp" // Unix seconds when it was signed
	HeaderSignature = "Qrdesk-Signature" // v1=hex(HMAC-SHA256(secret, timestamp + "." + body))
	HeaderEventID   = "Qrdesk-Event-Id"  // the body's id, for a receiver's log
)

// Sign returns the signature header's value for body signed at ts.
func Sign(secret string, ts int64, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(strconv.FormatInt(ts, 10)))
	mac.Write([]byte("."))
	mac.Write(body)
	return "v1=" + hex.EncodeToString(mac.Sum(nil))
}

// Errors of Verify.
var (
	ErrBadSignature = errors.New("the signature does not match the body and timestamp: not from this server, or the secret is another endpoint's")
	ErrStale        = errors.New("the timestamp is too far from now: a replayed delivery, or a clock that is off")
	ErrNoSecret     = errors.New("no signing secret to check the delivery with (the whsec_… 'qrdesk-server webhook add' showed): is the receiver's setting empty?")
)

// Verify checks a delivery: the signature header (one or more v1=…
// separated by commas: any may match) over timestamp and body under
// secret, and that the timestamp is within tolerance of now (a replay of
// an old delivery is refused; one within the tolerance the receiver
// detects by the event's id). An empty secret (a receiver's setting
// that did not reach it) is ErrNoSecret: with it anyone could sign.
func Verify(secret, timestamp, signature string, body []byte, now time.Time, tolerance time.Duration) error {
	if strings.TrimSpace(secret) == "" {
		return ErrNoSecret // an empty key signs for anyone
	}
	ts, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return fmt.Errorf("the %s header %q is not Unix seconds", HeaderTimestamp, timestamp)
	}
	want := Sign(secret, ts, body)
	ok := false
	for _, s := range strings.Split(signature, ",") {
		if hmac.Equal([]byte(strings.TrimSpace(s)), []byte(want)) {
			ok = true
		}
	}
	if !ok {
		return ErrBadSignature
	}
	if d := now.Sub(time.Unix(ts, 0)); d > tolerance || d < -tolerance {
		return ErrStale
	}
	return nil
}

// Errors of the endpoints' configuration.
var (
	ErrExists   = errors.New("a webhook endpoint with this name exists: remove it first, or give another name")
	ErrNotFound = errors.New("no webhook endpoint of this name ('qrdesk-server webhook list' lists them)")
)

// CheckEndpoint checks a new endpoint's name and URL, with a reason a
// person can act on.
func CheckEndpoint(name, rawURL string) error {
	if name == "" || len(name) > 64 {
		return fmt.Errorf("give the endpoint a name of 1 to 64 letters, digits, '-', '_' or '.', e.g. wms")
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return fmt.Errorf("the endpoint name %q has %q: use letters, digits, '-', '_' or '.', e.g. wms", name, r)
		}
	}
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("the endpoint URL must be an http:// or https:// address with a host, e.g. https://wms.example.com/qrdesk/events")
	}
	if u.Fragment != "" {
		return fmt.Errorf("the endpoint URL has a #fragment, which is never sent: leave it out")
	}
	return nil
}

// CompactedError refuses a cursor below what the server's feed still
// holds: the events after it were compacted away.
type CompactedError struct{ After, Floor int64 }

func (e *CompactedError) Error() string {
	return fmt.Sprintf("the events after cursor %d are no longer kept (the server keeps them after %d): start again with --since %d, and add a webhook endpoint for a system that must miss nothing (the server keeps every event until each endpoint has it)", e.After, e.Floor, e.Floor)
}
