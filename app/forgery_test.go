package app

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// lookalikes are characters a forger might slip in for ones that look the
// same: Cyrillic, Greek, full-width.
var lookalikes = map[byte][]string{
	'A': {"А", "Α", "Ａ"}, 'B': {"В", "Β"}, 'C': {"С"}, 'E': {"Е", "Ε"}, 'H': {"Н", "Η"}, 'K': {"К", "Κ"},
	'M': {"М", "Μ"}, 'P': {"Р", "Ρ"}, 'T': {"Т", "Τ"}, 'X': {"Х", "Χ"}, 'Y': {"У"}, '2': {"２"}, '3': {"З"}, '-': {"‐", "–", "−"},
}

// TestForgeryMillion tries 1,000,000 forged strings (random, single
// changes, swapped fields, other keys, truncations, extensions, lower case,
// look-alikes) against real codes: not one may verify. A real database
// lookup is never reached for them (see store tests); this checks the gate.
func TestForgeryMillion(t *testing.T) {
	n := 1_000_000
	if testing.Short() {
		n = 100_000
	}
	keys := testKeys(t)
	other := testKeys(t)
	other.List[0].ID = keys.List[0].ID
	rng := rand.New(rand.NewPCG(1, 2))
	var real []Code
	for i := 0; i < 50; i++ {
		c := Code{Prefix: "WH", Date: "261129", Station: "A", Serial: i + 1, SerialLen: 4}
		if i%5 == 0 {
			c = Code{}
		}
		real = append(real, signed(t, keys, c))
	}
	genuine := map[string]bool{}
	for _, c := range real {
		genuine[c.String()] = true
	}
	randomString := func(n int) string {
		const chars = Alphabet + "01IO-"
		b := make([]byte, n)
		for i := range b {
			b[i] = chars[rng.IntN(len(chars))]
		}
		return string(b)
	}
	kinds := map[string]int{}
	accepted := 0
	for i := 0; i < n; i++ {
		base := real[rng.IntN(len(real))]
		s := base.String()
		var forged, kind string
		switch i % 8 {
		case 0:
			kind, forged = "random", randomString(22+rng.IntN(30))
		case 1:
			p := rng.IntN(len(s))
			kind, forged = "one character", s[:p]+string(Alphabet[rng.IntN(32)])+s[p+1:]
		case 2:
			o := real[rng.IntN(len(real))]
			kind = "swapped fields"
			forged = strings.Replace(s, base.Random, o.Random, 1)
			if rng.IntN(2) == 0 {
				forged = strings.Replace(s, string(base.KeyID)+base.Signature, string(o.KeyID)+o.Signature, 1)
			}
		case 3:
			c := base
			c.Random = randomString(RandomLen)
			other.Sign(&c)
			kind, forged = "another key", c.String()
		case 4:
			kind, forged = "truncated", s[:rng.IntN(len(s))]
		case 5:
			kind, forged = "extended", s+randomString(1+rng.IntN(4))
		case 6:
			p := rng.IntN(len(s))
			kind, forged = "lower-case forgery", strings.ToLower(s[:p]+string(Alphabet[rng.IntN(32)])+s[p+1:])
		case 7:
			p := rng.IntN(len(s))
			if alts, ok := lookalikes[s[p]]; ok {
				kind, forged = "look-alike", s[:p]+alts[rng.IntN(len(alts))]+s[p+1:]
			} else {
				kind, forged = "serial changed", strings.Replace(s, base.SerialText(), "9999", 1)
			}
		}
		c, err := Parse(Normalize(forged))
		if err != nil {
			kinds[kind]++
			continue
		}
		if keys.Verify(c) == nil && !genuine[c.String()] {
			accepted++
			t.Errorf("forgery accepted (%s): %q", kind, forged)
		}
		kinds[kind]++
	}
	if accepted != 0 {
		t.Fatalf("%d forgeries accepted", accepted)
	}
	t.Logf("%d forged strings refused: %v", n, kinds)
}
