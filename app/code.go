package app

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Field widths of a code. The tail (random part, key id, signature) has a
// fixed width, so a code is parsed from the right and separators never matter.
const (
	RandomLen    = 12
	SignatureLen = 8 // 40 bits of HMAC-SHA256
	tailLen      = RandomLen + 1 + SignatureLen
	MaxPrefixLen = 6
	MinSerialLen = 3
	MaxSerialLen = 8
	dateLen      = 6 // YYMMDD
)

// Code is one signed one-time code. The optional fields (Prefix; Date, Station
// and Serial together) are human-readable and covered by the signature like
// every other field.
//
// Printed form, groups joined by '-':
//
//	[PREFIX-][YYMMDD-SNNNN-]RANDOM12RAND-KSIGNATUR
//
// where S is the station id, NNNN the daily serial, K the key id.
type Code struct {
	Prefix    string // 0–6 letters A–Z
	Date      string // label date as YYMMDD, "" when the code has no date/serial
	Station   string // one letter A–Z, set together with Date
	Serial    int    // daily serial number, with Date
	SerialLen int    // digits the serial is printed with (3–8), with Date
	KeyID     byte   // the key of the key ring that signed the code
	Random    string // RandomLen characters of Alphabet
	Signature string // SignatureLen characters of Alphabet
}

// HasSerial reports whether the code carries the date, station and serial.
func (c Code) HasSerial() bool { return c.Date != "" }

// SerialText is the serial as printed, zero-padded, or "".
func (c Code) SerialText() string {
	if !c.HasSerial() {
		return ""
	}
	return fmt.Sprintf("%0*d", c.SerialLen, c.Serial)
}

// LabelDate is the code's date as YYYY-MM-DD, or "".
func (c Code) LabelDate() string {
	if !c.HasSerial() {
		return ""
	}
	return "20" + c.Date[0:2] + "-" + c.Date[2:4] + "-" + c.Date[4:6]
}

// String is the canonical printed form (see Code).
func (c Code) String() string {
	parts := make([]string, 0, 5)
	if c.Prefix != "" {
		parts = append(parts, c.Prefix)
	}
	if c.HasSerial() {
		parts = append(parts, c.Date, c.Station+c.SerialText())
	}
	parts = append(parts, c.Random, string(c.KeyID)+c.Signature)
	return strings.Join(parts, "-")
}

// signedMessage is what the signature covers: every field of the code, each
// delimited so that no two different codes share a message.
func (c Code) signedMessage() []byte {
	return []byte("qrdesk/1|" + c.Prefix + "|" + c.Date + "|" + c.Station + "|" +
		c.SerialText() + "|" + string(c.KeyID) + "|" + c.Random)
}

// ParseError says why an input is not a well-formed code.
type ParseError struct{ Reason string }

func (e *ParseError) Error() string { return "malformed code: " + e.Reason }

// Parse reads a code from normalised input (see Normalize). Separators and
// anything else outside A–Z and 0–9 are ignored; fields are read by width from
// the right. Parse checks only the shape; Keys.Verify checks the signature.
func Parse(normalized string) (Code, error) {
	s := compact(normalized)
	if len(s) < tailLen {
		return Code{}, &ParseError{fmt.Sprintf("too short (%d letters and digits, a code has at least %d)", len(s), tailLen)}
	}
	tail := s[len(s)-tailLen:]
	c := Code{
		Random:    tail[:RandomLen],
		KeyID:     tail[RandomLen],
		Signature: tail[RandomLen+1:],
	}
	if !inAlphabet(tail) {
		return Code{}, &ParseError{"the last " + strconv.Itoa(tailLen) + " characters contain 0, 1, I or O, which codes never use"}
	}
	if err := parseFront(s[:len(s)-tailLen], &c); err != nil {
		return Code{}, err
	}
	return c, nil
}

// parseFront reads the optional fields: PREFIX, then YYMMDD, station letter
// and serial digits.
func parseFront(front string, c *Code) error {
	i := 0
	for i < len(front) && front[i] >= 'A' && front[i] <= 'Z' {
		i++
	}
	if i > MaxPrefixLen {
		return &ParseError{fmt.Sprintf("prefix %q is longer than %d letters", front[:i], MaxPrefixLen)}
	}
	c.Prefix = front[:i]
	rest := front[i:]
	if rest == "" {
		return nil
	}
	if len(rest) < dateLen+1+MinSerialLen || !allDigits(rest[:dateLen]) {
		return &ParseError{"the date and serial part is incomplete"}
	}
	date, station, serial := rest[:dateLen], rest[dateLen:dateLen+1], rest[dateLen+1:]
	if _, err := time.Parse("060102", date); err != nil {
		return &ParseError{fmt.Sprintf("%q is not a date (YYMMDD)", date)}
	}
	if station[0] < 'A' || station[0] > 'Z' {
		return &ParseError{"the station letter after the date is missing"}
	}
	if len(serial) > MaxSerialLen || !allDigits(serial) {
		return &ParseError{fmt.Sprintf("serial %q must be %d to %d digits", serial, MinSerialLen, MaxSerialLen)}
	}
	n, _ := strconv.Atoi(serial)
	c.Date, c.Station, c.Serial, c.SerialLen = date, station, n, len(serial)
	return nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// compact keeps only A–Z and 0–9: separators, and characters a mismatched
// keyboard layout typed instead of them, are dropped.
func compact(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') {
			b.WriteByte(ch)
		}
	}
	return b.String()
}

// Compact is the input with separators dropped (only A–Z and 0–9 kept).
func Compact(normalized string) string { return compact(normalized) }

// IsSerial reports whether s could be a daily serial (3–8 digits).
func IsSerial(s string) bool {
	return len(s) >= MinSerialLen && len(s) <= MaxSerialLen && allDigits(s)
}
