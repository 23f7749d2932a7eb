package app

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// fuzzKeys is a fixed key ring, so the fuzzer's seeds include codes it
// really signed.
var fuzzKeys = Keys{Active: 'A', List: []Key{{ID: 'A', Secret: bytes.Repeat([]byte{42}, KeySize), Created: time.Unix(0, 0)}}}

func genuineCodes() []Code {
	out := []Code{
		{Random: "23456789ABCD"},
		{Prefix: "WH", Date: "261129", Station: "A", Serial: 42, SerialLen: 4, Random: "EFGHJKLMNPQR"},
		{Prefix: "ABCDEF", Date: "260101", Station: "Z", Serial: 1, SerialLen: 8, Random: "STUVWXYZ2345"},
	}
	for i := range out {
		fuzzKeys.Sign(&out[i])
	}
	return out
}

// FuzzNormalizeParse: no input panics, and whatever parses prints back to
// a string that parses to the same code.
func FuzzNormalizeParse(f *testing.F) {
	for _, c := range genuineCodes() {
		f.Add(c.String())
		f.Add("]Q1" + strings.ToLower(c.String()) + "\r\n")
	}
	f.Add(`\000026WH-261129-A0042`)
	f.Add("\x00\xff\xfe")
	f.Fuzz(func(t *testing.T, raw string) {
		c, err := Parse(Normalize(raw))
		if err != nil {
			return
		}
		again, err := Parse(Normalize(c.String()))
		if err != nil || again != c {
			t.Fatalf("%q parsed to %+v, which prints as %q and reparses to %+v (%v)", raw, c, c.String(), again, err)
		}
	})
}

// FuzzVerify: nothing verifies unless it is one of the codes the key
// really signed (in any spelling the normaliser accepts).
func FuzzVerify(f *testing.F) {
	genuine := map[string]bool{}
	for _, c := range genuineCodes() {
		genuine[c.String()] = true
		f.Add(c.String())
		s := c.String()
		f.Add(s[:len(s)-1] + "X")
		f.Add(strings.Replace(s, "-", "", -1) + "2")
	}
	f.Fuzz(func(t *testing.T, raw string) {
		c, err := Parse(Normalize(raw))
		if err != nil {
			return
		}
		if fuzzKeys.Verify(c) == nil && !genuine[c.String()] {
			t.Fatalf("%q verified as %s, which the key never signed", raw, c)
		}
	})
}
