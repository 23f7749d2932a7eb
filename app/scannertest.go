package app

import (
	"fmt"
	"strings"
	"time"
	"unicode"
)

// ScannerTestPayload is the QR content of the scanner test label: every
// digit and letter and the separator, so any garbling shows.
const ScannerTestPayload = "QRDESK-SCANTEST-0123456789-ABCDEFGHIJKLMNOPQRSTUVWXYZ-END"

// knownLayouts are keyboard layouts that garble a US-configured scanner's
// keystrokes, as maps from what arrives to what was meant (upper case).
var knownLayouts = []struct {
	name string
	m    string // pairs: arrived, meant
}{
	{"French AZERTY", "&1É2\"3'4(5-6È7_8Ç9À0)-AQQAZWWZ?M"},
	{"German QWERTZ", "ß-ZYYZ"},
	{"Belgian AZERTY", "&1É2\"3'4(5§6È7!8Ç9À0)-AQQAZWWZ?M"},
}

// IsScannerTest reports whether a scan is the test label (also when a
// keyboard layout garbled it).
func IsScannerTest(raw string) bool {
	u := strings.ToUpper(raw)
	return strings.Contains(u, "SCANTEST") || strings.Contains(u, "SCQNTEST")
}

// ScannerReport is what the scanner test found out.
type ScannerReport struct {
	Terminator     string   `json:"terminator"` // CR, LF, CRLF, Tab or none
	CapsLock       bool     `json:"caps_lock"`
	Layout         string   `json:"layout,omitempty"` // a known layout, "unknown", or "" when none garbles
	Map            string   `json:"map,omitempty"`    // pairs arrived→meant, for the scanner_map setting
	Dropped        int      `json:"dropped"`
	Doubled        int      `json:"doubled"`
	Wrong          int      `json:"wrong"`
	CharsPerSecond float64  `json:"chars_per_second,omitempty"`
	OK             bool     `json:"ok"`
	Advice         []string `json:"advice"`
}

// AnalyzeScannerTest compares what the scanner typed (including its
// terminator) with the test label; took is the time from the first to the
// last character, 0 when unknown.
func AnalyzeScannerTest(typed string, took time.Duration) ScannerReport {
	var r ScannerReport
	body := typed
	switch {
	case strings.HasSuffix(body, "\r\n"):
		r.Terminator, body = "CRLF", strings.TrimSuffix(body, "\r\n")
	case strings.HasSuffix(body, "\r"):
		r.Terminator, body = "CR", strings.TrimSuffix(body, "\r")
	case strings.HasSuffix(body, "\n"):
		r.Terminator, body = "LF", strings.TrimSuffix(body, "\n")
	case strings.HasSuffix(body, "\t"):
		r.Terminator, body = "Tab", strings.TrimSuffix(body, "\t")
	default:
		r.Terminator = "none"
	}
	lower, upper := 0, 0
	for _, ch := range body {
		if unicode.IsLower(ch) {
			lower++
		} else if unicode.IsUpper(ch) {
			upper++
		}
	}
	r.CapsLock = lower > upper
	got := []rune(strings.ToUpper(body))
	want := []rune(ScannerTestPayload)
	if took > 0 && len(got) > 1 {
		r.CharsPerSecond = float64(len(got)-1) / took.Seconds()
	}

	// A layout garbles position by position: derive what maps to what.
	if len(got) == len(want) {
		m := map[rune]rune{}
		consistent := true
		for i := range got {
			if got[i] != want[i] {
				if prev, ok := m[got[i]]; ok && prev != want[i] {
					consistent = false
				}
				m[got[i]] = want[i]
			}
		}
		if consistent && len(m) > 0 {
			r.Layout = "unknown"
			for _, l := range knownLayouts {
				if mapMatches(l.m, m) {
					r.Layout, r.Map = l.name, l.m
				}
			}
			if r.Map == "" {
				var b strings.Builder
				for from, to := range m {
					b.WriteRune(from)
					b.WriteRune(to)
				}
				r.Map = b.String()
			}
			got = []rune(ApplyScannerMap(string(got), r.Map))
		}
	}
	r.Dropped, r.Doubled, r.Wrong = diffRunes(want, got)
	r.OK = r.Terminator != "none" && r.Layout == "" && r.Dropped == 0 && r.Doubled == 0 && r.Wrong == 0
	r.Advice = r.advice()
	return r
}

func (r ScannerReport) advice() []string {
	var a []string
	if r.Terminator == "none" {
		a = append(a, "The scanner sends no Enter after a code: set its suffix to CR (Enter) or Tab with its configuration codes.")
	} else {
		a = append(a, fmt.Sprintf("The scanner ends each code with %s: good.", r.Terminator))
	}
	if r.CapsLock {
		a = append(a, "Letters arrive in lower case (Caps Lock is on): harmless, qrdesk upper-cases every scan.")
	}
	switch r.Layout {
	case "":
	case "unknown":
		a = append(a, "Some characters arrive as others: the scanner's keyboard layout differs from the computer's. Set the same layout on both, or save this translation (qrdesk scanner-test --save).")
	default:
		a = append(a, fmt.Sprintf("The computer's %s layout garbles the scanner's keystrokes. Set the scanner to the same layout, or save this translation (qrdesk scanner-test --save).", r.Layout))
	}
	if r.Dropped > 0 || r.Doubled > 0 || r.Wrong > 0 {
		a = append(a, fmt.Sprintf("%d characters were dropped, %d doubled and %d wrong: lower the scanner's keystroke speed (inter-character delay) in its configuration.", r.Dropped, r.Doubled, r.Wrong))
	}
	if r.CharsPerSecond > 0 {
		a = append(a, fmt.Sprintf("Speed: %.0f characters per second.", r.CharsPerSecond))
	}
	if r.OK {
		a = append(a, "The scanner is set up correctly.")
	}
	return a
}

// mapMatches reports whether every observed substitution is in the layout.
func mapMatches(layout string, observed map[rune]rune) bool {
	lm := parseScannerMap(layout)
	for from, to := range observed {
		if lm[from] != to {
			return false
		}
	}
	return true
}

func parseScannerMap(pairs string) map[rune]rune {
	rs := []rune(pairs)
	m := make(map[rune]rune, len(rs)/2)
	for i := 0; i+1 < len(rs); i += 2 {
		m[rs[i]] = rs[i+1]
	}
	return m
}

// ApplyScannerMap translates upper-cased input through a stored map of
// arrived→meant pairs (the scanner_map setting).
func ApplyScannerMap(s, pairs string) string {
	if pairs == "" {
		return s
	}
	m := parseScannerMap(pairs)
	return strings.Map(func(r rune) rune {
		if to, ok := m[r]; ok {
			return to
		}
		return r
	}, strings.ToUpper(s))
}

// diffRunes aligns got against want (edit distance) and counts dropped
// characters, doubled ones (an extra copy of its neighbour) and wrong ones.
func diffRunes(want, got []rune) (dropped, doubled, wrong int) {
	n, m := len(want), len(got)
	d := make([][]int, n+1)
	for i := range d {
		d[i] = make([]int, m+1)
		d[i][0] = i
	}
	for j := 0; j <= m; j++ {
		d[0][j] = j
	}
	for i := 1; i <= n; i++ {
		for j := 1; j <= m; j++ {
			cost := 1
			if want[i-1] == got[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
		}
	}
	for i, j := n, m; i > 0 || j > 0; {
		switch {
		case i > 0 && j > 0 && want[i-1] == got[j-1] && d[i][j] == d[i-1][j-1]:
			i, j = i-1, j-1
		case i > 0 && j > 0 && d[i][j] == d[i-1][j-1]+1:
			wrong++
			i, j = i-1, j-1
		case j > 0 && d[i][j] == d[i][j-1]+1:
			if (j > 1 && got[j-2] == got[j-1]) || (j < m && got[j] == got[j-1]) {
				doubled++
			} else {
				wrong++
			}
			j--
		default:
			dropped++
			i--
		}
	}
	return dropped, doubled, wrong
}
