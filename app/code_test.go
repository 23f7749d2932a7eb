package app

import (
	"strings"
	"testing"
	"time"

	"github.com/skip2/go-qrcode"
)

func testKeys(t testing.TB) Keys {
	t.Helper()
	ks := Keys{}
	if err := ks.Rotate(time.Unix(1_700_000_000, 0)); err != nil {
		t.Fatal(err)
	}
	return ks
}

func signed(t testing.TB, ks Keys, c Code) Code {
	t.Helper()
	var err error
	if c.Random == "" {
		if c.Random, err = randomString(RandomLen); err != nil {
			t.Fatal(err)
		}
	}
	if err := ks.Sign(&c); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCodeRoundTrip(t *testing.T) {
	ks := testKeys(t)
	for _, tc := range []struct {
		name string
		code Code
	}{
		{"Plain", Code{}},
		{"Prefix", Code{Prefix: "WH"}},
		{"DateSerial", Code{Date: "261129", Station: "A", Serial: 42, SerialLen: 4}},
		{"Full", Code{Prefix: "WHSEAB", Date: "261231", Station: "Z", Serial: 99999999, SerialLen: 8}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := signed(t, ks, tc.code)
			got, err := Parse(Normalize(c.String()))
			if err != nil {
				t.Fatalf("Parse(%q): %v", c.String(), err)
			}
			if got != c {
				t.Fatalf("Parse(%q) = %+v, want %+v", c.String(), got, c)
			}
			if err := ks.Verify(got); err != nil {
				t.Fatalf("Verify: %v", err)
			}
		})
	}
}

func TestCodeFitsSmallQR(t *testing.T) {
	ks := testKeys(t)
	for _, tc := range []struct {
		name       string
		code       Code
		maxLen     int
		maxVersion int
	}{
		{"NoOptionalFields", Code{}, 38, 2},
		{"Prefix4DateStation4DigitSerial", Code{Prefix: "WHSE", Date: "261129", Station: "A", Serial: 42, SerialLen: 4}, 61, 3},
		{"Longest", Code{Prefix: "ABCDEF", Date: "261129", Station: "A", Serial: 1, SerialLen: 8}, 61, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := signed(t, ks, tc.code).String()
			if len(s) > tc.maxLen {
				t.Fatalf("len(%q) = %d, want ≤ %d", s, len(s), tc.maxLen)
			}
			if strings.ToUpper(s) != s {
				t.Fatalf("%q has lower case", s)
			}
			q, err := qrcode.New(s, qrcode.Medium)
			if err != nil {
				t.Fatal(err)
			}
			if q.VersionNumber > tc.maxVersion {
				t.Fatalf("%q needs QR version %d at level M, want ≤ %d", s, q.VersionNumber, tc.maxVersion)
			}
		})
	}
}

func TestRandomPartAlphabet(t *testing.T) {
	counts := map[rune]int{}
	for i := 0; i < 2000; i++ {
		r, err := randomString(RandomLen)
		if err != nil {
			t.Fatal(err)
		}
		for _, ch := range r {
			counts[ch]++
		}
	}
	for _, bad := range "01IO" {
		if counts[bad] > 0 {
			t.Fatalf("random part uses look-alike %q", bad)
		}
	}
	if len(counts) != len(Alphabet) {
		t.Fatalf("random parts used %d distinct characters, want all %d", len(counts), len(Alphabet))
	}
	// 24,000 draws over 32 characters: 750 each on average; a biased
	// generator would leave some far off.
	for ch, n := range counts {
		if n < 550 || n > 950 {
			t.Errorf("character %q drawn %d times, want about 750", ch, n)
		}
	}
}

func TestNormalize(t *testing.T) {
	ks := testKeys(t)
	c := signed(t, ks, Code{Prefix: "WH", Date: "261129", Station: "B", Serial: 7, SerialLen: 4})
	s := c.String()
	for name, input := range map[string]string{
		"LowerCase":        strings.ToLower(s),
		"Padded":           "  \t" + s + " \r\n",
		"AIMPrefix":        "]Q1" + s,
		"ECIEscape":        `\000026` + s,
		"GarbledSeparator": strings.ReplaceAll(s, "-", "ß"),
		"HalfSeparator":    strings.ReplaceAll(s, "-", "½"),
		"NoSeparators":     strings.ReplaceAll(s, "-", ""),
		"ControlInside":    strings.Replace(s, "-", "\x00", 1),
		"Spaces":           strings.ReplaceAll(s, "-", " "),
	} {
		t.Run(name, func(t *testing.T) {
			got, err := Parse(Normalize(input))
			if err != nil {
				t.Fatalf("Parse(Normalize(%q)): %v", input, err)
			}
			if got != c {
				t.Fatalf("got %+v, want %+v", got, c)
			}
		})
	}
}

func TestParseMalformed(t *testing.T) {
	for name, input := range map[string]string{
		"Empty":        "",
		"Short":        "ABCDEFGH",
		"LookAlike":    "ABCDEFGHJKL0-AKQ7F9ZXA4",
		"BadDate":      "WH-261399-A0001-ABCDEFGHJKLM-AKQ7F9ZXA",
		"LongPrefix":   "ABCDEFG-ABCDEFGHJKLM-AKQ7F9ZXA",
		"NoStation":    "WH-261129-10001-ABCDEFGHJKLM-AKQ7F9ZXA",
		"SerialTooBig": "261129-A123456789-ABCDEFGHJKLM-AKQ7F9ZXA",
		"Emoji":        "🙂🙂🙂",
	} {
		t.Run(name, func(t *testing.T) {
			if c, err := Parse(Normalize(input)); err == nil {
				t.Fatalf("Parse(%q) = %+v, want an error", input, c)
			}
		})
	}
}

func TestVerifyForgeries(t *testing.T) {
	ks := testKeys(t)
	c := signed(t, ks, Code{Prefix: "WH", Date: "261129", Station: "A", Serial: 42, SerialLen: 4})
	s := c.String()
	parsed := 0
	for i := 0; i < len(s); i++ {
		for _, ch := range "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789" {
			if s[i] == byte(ch) || s[i] == '-' {
				continue
			}
			forged := s[:i] + string(ch) + s[i+1:]
			fc, err := Parse(Normalize(forged))
			if err != nil {
				continue // a change of shape is malformed, also a refusal
			}
			parsed++
			if err := ks.Verify(fc); err == nil {
				t.Fatalf("forged %q verified", forged)
			}
		}
	}
	if parsed < 500 {
		t.Fatalf("only %d single-character variants parsed; the test is not exercising Verify", parsed)
	}

	other := testKeys(t)
	other.List[0].ID = ks.List[0].ID
	if err := other.Verify(c); err == nil {
		t.Fatal("a code verified under another key ring with the same key id")
	}
}

func TestKeyRotationAndRetirement(t *testing.T) {
	ks := testKeys(t)
	old := signed(t, ks, Code{})
	if err := ks.Rotate(time.Now()); err != nil {
		t.Fatal(err)
	}
	fresh := signed(t, ks, Code{})
	if fresh.KeyID == old.KeyID {
		t.Fatalf("rotation kept key id %c", old.KeyID)
	}
	for _, c := range []Code{old, fresh} {
		if err := ks.Verify(c); err != nil {
			t.Fatalf("Verify(%s) after rotation: %v", c, err)
		}
	}
	if err := ks.Retire(fresh.KeyID); err == nil {
		t.Fatal("retiring the active key was allowed")
	}
	if err := ks.Retire(old.KeyID); err != nil {
		t.Fatal(err)
	}
	if err := ks.Verify(old); err != ErrRetiredKey {
		t.Fatalf("Verify(old) = %v, want ErrRetiredKey", err)
	}
	if err := ks.Verify(fresh); err != nil {
		t.Fatalf("Verify(fresh) = %v", err)
	}
}
