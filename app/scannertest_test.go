package app

import (
	"strings"
	"testing"
	"time"
)

// typeAs garbles text the way a layout would (inverse of its map).
func typeAs(text, layoutMap string) string {
	inv := map[rune]rune{}
	for from, to := range parseScannerMap(layoutMap) {
		inv[to] = from
	}
	return strings.Map(func(r rune) rune {
		if g, ok := inv[r]; ok {
			return g
		}
		return r
	}, text)
}

func TestScannerTest(t *testing.T) {
	for _, tc := range []struct {
		name     string
		typed    string
		took     time.Duration
		check    func(r ScannerReport) bool
		wantText string
	}{
		{"Good", ScannerTestPayload + "\r", 200 * time.Millisecond,
			func(r ScannerReport) bool { return r.OK && r.Terminator == "CR" && r.CharsPerSecond > 250 }, "set up correctly"},
		{"NoTerminator", ScannerTestPayload, 0, func(r ScannerReport) bool { return !r.OK && r.Terminator == "none" }, "suffix"},
		{"TabAndCapsLock", strings.ToLower(ScannerTestPayload) + "\t", 0,
			func(r ScannerReport) bool { return r.CapsLock && r.Terminator == "Tab" && r.OK }, "Caps Lock"},
		{"AZERTY", strings.ToLower(typeAs(ScannerTestPayload, knownLayouts[0].m)) + "\n", 0,
			func(r ScannerReport) bool { return r.Layout == "French AZERTY" && r.Map == knownLayouts[0].m }, "French AZERTY"},
		{"QWERTZ", typeAs(ScannerTestPayload, knownLayouts[1].m) + "\r\n", 0,
			func(r ScannerReport) bool { return r.Layout == "German QWERTZ" && r.Terminator == "CRLF" }, "German QWERTZ"},
		{"Dropped", strings.Replace(ScannerTestPayload, "456", "46", 1) + "\r", 0,
			func(r ScannerReport) bool { return r.Dropped == 1 && !r.OK }, "dropped"},
		{"Doubled", strings.Replace(ScannerTestPayload, "KLM", "KLLM", 1) + "\r", 0,
			func(r ScannerReport) bool { return r.Doubled == 1 && !r.OK }, "doubled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := AnalyzeScannerTest(tc.typed, tc.took)
			if !tc.check(r) {
				t.Fatalf("report %+v", r)
			}
			if !strings.Contains(strings.Join(r.Advice, " "), tc.wantText) {
				t.Fatalf("advice %q does not mention %q", r.Advice, tc.wantText)
			}
		})
	}
	if !IsScannerTest(strings.ToLower(typeAs(ScannerTestPayload, knownLayouts[0].m))) {
		t.Fatal("a garbled test label was not recognised")
	}
}

// TestScannerMapRedeems: with the saved map, a code typed through the
// French layout decodes to the real code.
func TestScannerMapRedeems(t *testing.T) {
	ks := testKeys(t)
	c := signed(t, ks, Code{Prefix: "WH", Date: "261129", Station: "A", Serial: 42, SerialLen: 4})
	garbled := strings.ToLower(typeAs(c.String(), knownLayouts[0].m))
	if got, err := Parse(Normalize(garbled)); err == nil && got == c {
		t.Fatal("the garbled code decoded without the map: the test proves nothing")
	}
	got, err := Parse(Normalize(ApplyScannerMap(garbled, knownLayouts[0].m)))
	if err != nil || got != c {
		t.Fatalf("with the map: %+v %v, want %s", got, err, c)
	}
}
