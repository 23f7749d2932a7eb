package app

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"
)

// KeySize is the number of random bytes in one signing key.
const KeySize = 32

// Key is one signing key of a key ring. Secret never leaves the key file.
type Key struct {
	ID      byte
	Secret  []byte
	Created time.Time
	Retired bool
}

// Fingerprint identifies a key without revealing it: the first 8 bytes of an
// HMAC of a fixed label, in hex.
func (k Key) Fingerprint() string {
	m := hmac.New(sha256.New, k.Secret)
	m.Write([]byte("qrdesk key fingerprint"))
	return hex.EncodeToString(m.Sum(nil)[:8])
}

// Keys is a key ring: new codes are signed with the active key, older keys
// still verify, retired keys verify nothing.
type Keys struct {
	Active byte
	List   []Key
}

// Errors of signature verification. Both are reported as bad_signature.
var (
	ErrBadSignature = errors.New("signature does not match: the code was not issued by this deployment or was altered")
	ErrRetiredKey   = errors.New("signed with a retired key")
	ErrUnknownKey   = errors.New("signed with a key this station does not have")
)

func (ks Keys) find(id byte) (Key, bool) {
	for _, k := range ks.List {
		if k.ID == id {
			return k, true
		}
	}
	return Key{}, false
}

// Has reports whether the ring holds key id (retired or not).
func (ks Keys) Has(id byte) bool {
	_, ok := ks.find(id)
	return ok
}

// ActiveKey returns the key new codes are signed with.
func (ks Keys) ActiveKey() (Key, error) {
	k, ok := ks.find(ks.Active)
	if !ok || k.Retired {
		return Key{}, fmt.Errorf("the key ring has no usable active key (%q)", ks.Active)
	}
	return k, nil
}

// Sign sets c.KeyID and c.Signature using the active key.
func (ks Keys) Sign(c *Code) error {
	k, err := ks.ActiveKey()
	if err != nil {
		return err
	}
	c.KeyID = k.ID
	c.Signature = signature(k.Secret, c)
	return nil
}

// Verify checks c's signature in constant time. It never touches a database.
func (ks Keys) Verify(c Code) error {
	k, ok := ks.find(c.KeyID)
	if !ok {
		return ErrUnknownKey
	}
	want := signature(k.Secret, &c)
	if !hmac.Equal([]byte(want), []byte(c.Signature)) {
		return ErrBadSignature
	}
	if k.Retired {
		return ErrRetiredKey
	}
	return nil
}

func signature(secret []byte, c *Code) string {
	m := hmac.New(sha256.New, secret)
	m.Write(c.signedMessage())
	return encodeBits(m.Sum(nil), SignatureLen)
}

// nextKeyID is the first id of Alphabet's order "ABC…Z23…9" not used yet.
func (ks Keys) nextKeyID() (byte, error) {
	order := Alphabet[8:] + Alphabet[:8]
	for i := 0; i < len(order); i++ {
		if _, used := ks.find(order[i]); !used {
			return order[i], nil
		}
	}
	return 0, errors.New("the key ring is full (32 keys); start a new deployment key file")
}

// RingID names the deployment's key ring: the fingerprint of its first key,
// which rotation never changes. A database remembers the ring it was made
// with, so a backup cannot be restored under another one.
func (ks Keys) RingID() string {
	if len(ks.List) == 0 {
		return ""
	}
	return ks.List[0].Fingerprint()
}
