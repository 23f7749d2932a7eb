package app

import (
	"crypto/rand"
	"fmt"
)

// Alphabet is the character set of the random part, the key id and the
// signature. Every character is in the QR alphanumeric set (so go-qrcode picks
// the compact alphanumeric mode) and the look-alikes 0/O and 1/I are left out
// so a clerk can read a code aloud or type it without guessing.
//
// It has exactly 32 characters: each holds 5 bits, and masking a random byte
// with 31 picks every character with the same probability (256 is a multiple
// of 32, so there is no modulo bias).
const Alphabet = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"

var alphabetIndex = func() [256]int8 {
	var idx [256]int8
	for i := range idx {
		idx[i] = -1
	}
	for i := 0; i < len(Alphabet); i++ {
		idx[Alphabet[i]] = int8(i)
	}
	return idx
}()

// inAlphabet reports whether every byte of s is in Alphabet.
func inAlphabet(s string) bool {
	for i := 0; i < len(s); i++ {
		if alphabetIndex[s[i]] < 0 {
			return false
		}
	}
	return true
}

// randomString returns n characters of Alphabet drawn from crypto/rand.
func randomString(n int) (string, error) {
	buf := make([]byte, n)
	if _, err := rand.Read(buf); err != nil {
		return "", fmt.Errorf("read random bytes: %w", err)
	}
	for i, b := range buf {
		buf[i] = Alphabet[b&31]
	}
	return string(buf), nil
}

// encodeBits writes the first 5*n bits of src as n characters of Alphabet.
func encodeBits(src []byte, n int) string {
	out := make([]byte, n)
	var acc uint64
	bits, pos := 0, 0
	for i := 0; i < n; i++ {
		for bits < 5 {
			acc = acc<<8 | uint64(src[pos])
			pos++
			bits += 8
		}
		bits -= 5
		out[i] = Alphabet[(acc>>uint(bits))&31]
	}
	return string(out)
}
