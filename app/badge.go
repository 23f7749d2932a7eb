package app

import (
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"strconv"
)

// A badge is an operator's sign-in QR. It is a different kind of code from
// a label and can never be taken for one:
//
//	QRDESK-BADGE-S-000007-0002-KSIGNATURESIGNAT
//	│            │ │      │    └ key id + 80-bit HMAC-SHA256 over the list, id, version, key id and the operator's name
//	│            │ │      └ badge version (raised when a badge is lost)
//	│            │ └ operator id in that list
//	│            └ the list it is for: S the deployment's staff list, D one desk's own list
//	└ marker: eleven letters, where a label has at most six before its digits, so Parse refuses every badge
//
// The signature uses the station's key ring with its own domain ("qrdesk-
// badge/2"), so a badge's signature can never be a label's. The signed
// message names the list the badge is for (BadgeScope): the deployment's
// key ring id for its staff list, or the desk's own identity for a desk
// that keeps its own list, so a badge of one desk's list never signs in
// at another desk, whatever ids and names the two lists hold. The name
// is in the signed message but not in the QR: scanners type ASCII
// reliably, a Chinese name not, and a badge of a removed or renamed
// operator must fail.
//
// A badge of the first format ("qrdesk-badge/1": no list, one character
// shorter) signs in nowhere: it named no desk, so any desk sharing the key
// ring took it. ParseBadge refuses it with ErrOldBadge: print a new one.
const (
	BadgeMarker       = "QRDESKBADGE"
	badgeIDDigits     = 6
	badgeVerDigits    = 4
	BadgeSignatureLen = 16
	badgeLen          = len(BadgeMarker) + 1 + badgeIDDigits + badgeVerDigits + 1 + BadgeSignatureLen
	oldBadgeLen       = badgeLen - 1
	maxBadgeID        = 999_999
	maxBadgeVersion   = 9_999
)

// BadgeLen is how many letters and digits a badge has, separators aside:
// a field that holds a scanned badge back knows from it that the badge is
// all there, even one misread.
const BadgeLen = badgeLen

// Badge scopes: the letter after the marker.
const (
	BadgeStaff byte = 'S' // the deployment's staff list
	BadgeDesk  byte = 'D' // one desk's own list
)

// OutcomeBadge: an operator badge was scanned where a label was expected.
const OutcomeBadge Outcome = "operator_badge"

// ErrOldBadge is ParseBadge's refusal of a badge printed before badges
// named their list.
var ErrOldBadge = errors.New("this badge was printed by an older qrdesk and names no desk: it no longer signs in anywhere; print a new one (the window's Staff screen, or 'qrdesk print --badges')")

// BadgeScope is the list a badge is for, in its signed message: the
// deployment's staff list (Shared; ID the key ring's id) or one desk's own
// list (ID the desk's identity).
type BadgeScope struct {
	Shared bool
	ID     string
}

// Letter is the scope's letter in the QR.
func (s BadgeScope) Letter() byte {
	if s.Shared {
		return BadgeStaff
	}
	return BadgeDesk
}

// Badge is a parsed badge; Verify against the operator it names.
type Badge struct {
	Scope      byte // BadgeStaff or BadgeDesk
	OperatorID int64
	Version    int
	KeyID      byte
	Signature  string
}

// IsBadge reports whether a scan is an operator badge (well formed or not),
// so that it is never redeemed or logged as a label.
func IsBadge(raw string) bool {
	s := compact(Normalize(raw))
	return len(s) >= len(BadgeMarker) && s[:len(BadgeMarker)] == BadgeMarker
}

// LooksLikeBadge reports whether a scan is a badge, or one misread: its
// first letters are the marker's but for one letter read wrongly, added or
// left out. A misread badge is still a credential, all but a letter: it is
// kept out of the scan log and qrdesk.log as a badge is, never logged in
// full as a bad label. No label comes near: a label has at most six
// letters before its digits.
func LooksLikeBadge(raw string) bool {
	if IsBadge(raw) {
		return true
	}
	s := compact(Normalize(raw))
	for n := len(BadgeMarker) - 1; n <= len(BadgeMarker)+1 && n <= len(s); n++ {
		if withinOneEdit(s[:n], BadgeMarker) {
			return true
		}
	}
	return false
}

// withinOneEdit reports whether a and b differ by at most one letter
// changed, added or left out.
func withinOneEdit(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(b)-len(a) > 1 {
		return false
	}
	i := 0
	for i < len(a) && a[i] == b[i] {
		i++
	}
	if len(a) == len(b) {
		return a[i+min(1, len(a)-i):] == b[i+min(1, len(b)-i):]
	}
	return a[i:] == b[i+1:]
}

// String is the badge as printed in the QR.
func (b Badge) String() string {
	return fmt.Sprintf("QRDESK-BADGE-%c-%0*d-%0*d-%c%s", b.Scope, badgeIDDigits, b.OperatorID, badgeVerDigits, b.Version, b.KeyID, b.Signature)
}

// ParseBadge reads a scanned badge; separators are ignored as on labels.
func ParseBadge(raw string) (Badge, error) {
	s := compact(Normalize(raw))
	if len(s) < len(BadgeMarker) || s[:len(BadgeMarker)] != BadgeMarker {
		return Badge{}, fmt.Errorf("not an operator badge")
	}
	rest := s[len(BadgeMarker):]
	if len(s) == oldBadgeLen && allDigits(rest[:badgeIDDigits+badgeVerDigits]) {
		return Badge{}, ErrOldBadge
	}
	if len(s) != badgeLen {
		return Badge{}, fmt.Errorf("the badge was not read completely (%d characters, a badge has %d): scan it again", len(s), badgeLen)
	}
	scope, rest := rest[0], rest[1:]
	idText, verText, tail := rest[:badgeIDDigits], rest[badgeIDDigits:badgeIDDigits+badgeVerDigits], rest[badgeIDDigits+badgeVerDigits:]
	if (scope != BadgeStaff && scope != BadgeDesk) || !allDigits(idText) || !allDigits(verText) || !inAlphabet(tail) {
		return Badge{}, fmt.Errorf("the badge is damaged or altered: scan it again, or print a new one")
	}
	id, _ := strconv.ParseInt(idText, 10, 64)
	ver, _ := strconv.Atoi(verText)
	return Badge{Scope: scope, OperatorID: id, Version: ver, KeyID: tail[0], Signature: tail[1:]}, nil
}

func badgeSignature(secret []byte, scope BadgeScope, b Badge, name string) string {
	m := hmac.New(sha256.New, secret)
	fmt.Fprintf(m, "qrdesk-badge/2|%c|%s|%d|%d|%c|%s", scope.Letter(), scope.ID, b.OperatorID, b.Version, b.KeyID, name)
	return encodeBits(m.Sum(nil), BadgeSignatureLen)
}

// BadgeFor makes and signs the badge of op for the list scope with the
// active key: op.StaffID names op in the deployment's staff list, op.ID in
// a desk's own.
func (ks Keys) BadgeFor(op Operator, scope BadgeScope) (Badge, error) {
	id := op.ID
	if scope.Shared {
		id = op.StaffID
	}
	if scope.ID == "" || id < 1 || id > maxBadgeID || op.BadgeVersion < 1 || op.BadgeVersion > maxBadgeVersion {
		return Badge{}, fmt.Errorf("operator %s cannot have a badge (id %d, version %d)", op.Name, id, op.BadgeVersion)
	}
	k, err := ks.ActiveKey()
	if err != nil {
		return Badge{}, err
	}
	b := Badge{Scope: scope.Letter(), OperatorID: id, Version: op.BadgeVersion, KeyID: k.ID}
	b.Signature = badgeSignature(k.Secret, scope, b, op.Name)
	return b, nil
}

// VerifyBadge checks b's signature for the operator named name in the
// list scope, in constant time.
func (ks Keys) VerifyBadge(b Badge, name string, scope BadgeScope) error {
	k, ok := ks.find(b.KeyID)
	if !ok {
		return ErrUnknownKey
	}
	if b.Scope != scope.Letter() || !hmac.Equal([]byte(badgeSignature(k.Secret, scope, b, name)), []byte(b.Signature)) {
		return ErrBadSignature
	}
	if k.Retired {
		return ErrRetiredKey
	}
	return nil
}
