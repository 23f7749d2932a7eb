package app

import (
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"strconv"
)

// A badge is an operator's sign-in QR. It is a different kind of code from
// a label and can never be taken for one:
//
//	QRDESK-BADGE-000007-0002-KSIGNATURESIGNAT
//	│            │      │    └ key id + 80-bit HMAC-SHA256 over id, version, key id and the operator's name
//	│            │      └ badge version (raised when a badge is lost)
//	│            └ operator id
//	└ marker: eleven letters, where a label has at most six before its digits, so Parse refuses every badge
//
// The signature uses the station's key ring with its own domain ("qrdesk-
// badge/1"), so a badge's signature can never be a label's. The name is in
// the signed message but not in the QR: scanners type ASCII reliably, a
// Chinese name not, and a badge of a removed or renamed operator must fail.
const (
	BadgeMarker       = "QRDESKBADGE"
	badgeIDDigits     = 6
	badgeVerDigits    = 4
	BadgeSignatureLen = 16
	badgeLen          = len(BadgeMarker) + badgeIDDigits + badgeVerDigits + 1 + BadgeSignatureLen
	maxBadgeID        = 999_999
	maxBadgeVersion   = 9_999
)

// OutcomeBadge: an operator badge was scanned where a label was expected.
const OutcomeBadge Outcome = "operator_badge"

// Badge is a parsed badge; Verify against the operator it names.
type Badge struct {
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

// String is the badge as printed in the QR.
func (b Badge) String() string {
	return fmt.Sprintf("QRDESK-BADGE-%0*d-%0*d-%c%s", badgeIDDigits, b.OperatorID, badgeVerDigits, b.Version, b.KeyID, b.Signature)
}

// ParseBadge reads a scanned badge; separators are ignored as on labels.
func ParseBadge(raw string) (Badge, error) {
	s := compact(Normalize(raw))
	if len(s) < len(BadgeMarker) || s[:len(BadgeMarker)] != BadgeMarker {
		return Badge{}, fmt.Errorf("not an operator badge")
	}
	if len(s) != badgeLen {
		return Badge{}, fmt.Errorf("the badge was not read completely (%d characters, a badge has %d): scan it again", len(s), badgeLen)
	}
	rest := s[len(BadgeMarker):]
	idText, verText, tail := rest[:badgeIDDigits], rest[badgeIDDigits:badgeIDDigits+badgeVerDigits], rest[badgeIDDigits+badgeVerDigits:]
	if !allDigits(idText) || !allDigits(verText) || !inAlphabet(tail) {
		return Badge{}, fmt.Errorf("the badge is damaged or altered: scan it again, or print a new one")
	}
	id, _ := strconv.ParseInt(idText, 10, 64)
	ver, _ := strconv.Atoi(verText)
	return Badge{OperatorID: id, Version: ver, KeyID: tail[0], Signature: tail[1:]}, nil
}

func badgeSignature(secret []byte, b Badge, name string) string {
	m := hmac.New(sha256.New, secret)
	fmt.Fprintf(m, "qrdesk-badge/1|%d|%d|%c|%s", b.OperatorID, b.Version, b.KeyID, name)
	return encodeBits(m.Sum(nil), BadgeSignatureLen)
}

// BadgeFor makes and signs the badge of op with the active key.
func (ks Keys) BadgeFor(op Operator) (Badge, error) {
	if op.ID < 1 || op.ID > maxBadgeID || op.BadgeVersion < 1 || op.BadgeVersion > maxBadgeVersion {
		return Badge{}, fmt.Errorf("operator %s cannot have a badge (id %d, version %d)", op.Name, op.ID, op.BadgeVersion)
	}
	k, err := ks.ActiveKey()
	if err != nil {
		return Badge{}, err
	}
	b := Badge{OperatorID: op.ID, Version: op.BadgeVersion, KeyID: k.ID}
	b.Signature = badgeSignature(k.Secret, b, op.Name)
	return b, nil
}

// VerifyBadge checks b's signature for the operator named name, in
// constant time.
func (ks Keys) VerifyBadge(b Badge, name string) error {
	k, ok := ks.find(b.KeyID)
	if !ok {
		return ErrUnknownKey
	}
	if !hmac.Equal([]byte(badgeSignature(k.Secret, b, name)), []byte(b.Signature)) {
		return ErrBadSignature
	}
	if k.Retired {
		return ErrRetiredKey
	}
	return nil
}
