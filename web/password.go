package web

import (
	"crypto/rand"
	"sync"

	"golang.org/x/crypto/bcrypt"
)

// PasswordCost is bcrypt's work factor for new passwords: about a quarter
// of a second per sign-in on a small server, so a stolen database's hashes
// are slow to guess, while a person signing in does not notice. Only tests
// change it: they sign in dozens of times, under the race detector too,
// where one hash at cost 12 takes seconds.
var PasswordCost = 12

// passwordAlphabet has no characters people confuse when they copy a
// password from a terminal (0/O, 1/l/I).
const passwordAlphabet = "abcdefghjkmnpqrstuvwxyz23456789"

// NewPassword returns a random password of 4 groups of 5 characters
// (about 99 bits), e.g. "k7mfx-2qpwa-…", for 'admin add' to print once.
func NewPassword() (string, error) {
	buf := make([]byte, 20)
	if _, err := rand.Read(buf); err != nil {
		return "", err
	}
	out := make([]byte, 0, 23)
	for i, b := range buf {
		if i > 0 && i%5 == 0 {
			out = append(out, '-')
		}
		// 256 is not a multiple of 31: the bias (under 1 %) costs a
		// fraction of a bit of 99.
		out = append(out, passwordAlphabet[int(b)%len(passwordAlphabet)])
	}
	return string(out), nil
}

// HashPassword is what the server stores of a password.
func HashPassword(password string) (string, error) {
	h, err := bcrypt.GenerateFromPassword([]byte(password), PasswordCost)
	return string(h), err
}

// checkPassword reports whether password matches hash. An empty hash (no
// such administrator) is compared against a dummy one, so a wrong name
// takes as long as a wrong password and does not reveal which names exist.
func checkPassword(hash, password string) bool {
	if hash == "" {
		bcrypt.CompareHashAndPassword(dummyHash(), []byte(password))
		return false
	}
	return bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) == nil
}

// dummyHash is a bcrypt hash at PasswordCost, made on first use (making it
// takes as long as a sign-in).
var dummyHash = sync.OnceValue(func() []byte {
	h, _ := bcrypt.GenerateFromPassword([]byte("no such administrator"), PasswordCost)
	return h
})
