package app

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"strings"

	"golang.org/x/crypto/argon2"
)

// Operator is a person who works at the desk: a picker who scans, or a
// supervisor who may also disable and enable codes, change settings,
// reprint and undo. Operators are never deleted: removal stamps RemovedAt
// so the history that names them stays readable, and their badge and PIN
// stop working at once.
type Operator struct {
	ID int64 `json:"id"`
	// StaffID is the operator's id in the deployment's staff list (the
	// server's; a badge on a synced desk names it), 0 for an operator of
	// this desk's own list or one the server has not accepted yet.
	StaffID      int64  `json:"staff_id,omitempty"`
	Name         string `json:"name"`
	Supervisor   bool   `json:"supervisor"`
	BadgeVersion int    `json:"badge_version"` // raised to cancel a lost badge
	CreatedAt    int64  `json:"created_at"`
	RemovedAt    int64  `json:"removed_at,omitempty"`
	PINHash      string `json:"-"`
}

// Role is what the operator may do, for lists and the window.
func (o Operator) Role() string {
	if o.Supervisor {
		return "supervisor"
	}
	return "operator"
}

// PIN rules: digits only, so it can be typed on a keypad or a scanner
// desk's numeric block, and long enough that guessing is slow together
// with the sign-in limiter.
const (
	MinPINDigits = 4
	MaxPINDigits = 12
)

// CheckPIN says what is wrong with a new PIN.
func CheckPIN(pin string) error {
	n := len([]rune(pin))
	switch {
	case n == 0:
		return fmt.Errorf("the PIN is empty: type %d to %d digits", MinPINDigits, MaxPINDigits)
	case !allDigits(pin):
		return fmt.Errorf("the PIN may only contain the digits 0–9: type %d to %d digits", MinPINDigits, MaxPINDigits)
	case n == 1:
		return fmt.Errorf("the PIN has 1 digit: use at least %d", MinPINDigits)
	case n < MinPINDigits:
		return fmt.Errorf("the PIN has %d digits: use at least %d", n, MinPINDigits)
	case n > MaxPINDigits:
		return fmt.Errorf("the PIN has %d digits: use at most %d", n, MaxPINDigits)
	}
	return nil
}

// CheckOperatorName validates the name of a new operator: the limits of
// every operator field, and not blank.
func CheckOperatorName(name string) error {
	if strings.TrimSpace(name) == "" {
		return fmt.Errorf("the operator name is empty: give the name the operator is known by at the desk")
	}
	if name != strings.TrimSpace(name) {
		return fmt.Errorf("the operator name %q starts or ends with a space: leave the spaces out", name)
	}
	return CheckOperator(name)
}

// argon2id parameters: OWASP's recommendation for argon2id (19 MiB, two
// passes). A PIN is short, so the hash must be slow to try; the parameters
// are stored in each hash, so raising them later keeps old PINs working.
const (
	pinMemoryKiB = 19 * 1024
	pinPasses    = 2
	pinThreads   = 1
	pinKeyLen    = 32
	pinSaltLen   = 16
)

var b64 = base64.RawStdEncoding

// HashPIN returns the PIN's argon2id hash in the usual PHC string form:
// $argon2id$v=19$m=19456,t=2,p=1$SALT$HASH.
func HashPIN(pin string) (string, error) {
	salt := make([]byte, pinSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	sum := argon2.IDKey([]byte(pin), salt, pinPasses, pinMemoryKiB, pinThreads, pinKeyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, pinMemoryKiB, pinPasses, pinThreads,
		b64.EncodeToString(salt), b64.EncodeToString(sum)), nil
}

// pinHash is a parsed HashPIN string.
type pinHash struct {
	mem, passes uint32
	threads     uint8
	salt, sum   []byte
}

func parsePINHash(hash string) (pinHash, bool) {
	var h pinHash
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" {
		return h, false
	}
	var version int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return h, false
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &h.mem, &h.passes, &h.threads); err != nil || h.passes == 0 || h.threads == 0 {
		return h, false
	}
	var err1, err2 error
	h.salt, err1 = b64.DecodeString(parts[4])
	h.sum, err2 = b64.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(h.sum) == 0 {
		return h, false
	}
	return h, true
}

// ValidPINHash reports whether hash is a PIN hash as HashPIN makes them:
// argon2id, salted, no weaker than a desk makes (a PIN that travels to the
// server travels as this, never in clear), and no costlier than a desk
// can check (a hash from elsewhere asking for gigabytes would stop every
// desk's sign-in).
func ValidPINHash(hash string) bool {
	h, ok := parsePINHash(hash)
	return ok && h.mem >= pinMemoryKiB && h.mem <= 16*pinMemoryKiB && h.passes >= pinPasses && h.passes <= 16*pinPasses &&
		h.threads <= 16 && len(h.salt) >= pinSaltLen && len(h.salt) <= 64 && len(h.sum) >= pinKeyLen && len(h.sum) <= 64
}

// PINMatches checks pin against a hash made by HashPIN, in constant time.
// A hash it cannot read matches nothing.
func PINMatches(hash, pin string) bool {
	h, ok := parsePINHash(hash)
	if !ok {
		return false
	}
	got := argon2.IDKey([]byte(pin), h.salt, h.passes, h.mem, h.threads, uint32(len(h.sum)))
	return subtle.ConstantTimeCompare(got, h.sum) == 1
}
