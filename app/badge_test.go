package app

import (
	"path/filepath"
	"strings"
	"testing"
)

func badgeKeys(t *testing.T) Keys {
	t.Helper()
	keys, err := LoadKeys(filepath.Join(t.TempDir(), "k.key"), true)
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

func TestBadgeNeverALabel(t *testing.T) {
	keys := badgeKeys(t)
	op := Operator{ID: 7, Name: "李娜", BadgeVersion: 2}
	desk := BadgeScope{ID: "desk-1"}
	b, err := keys.BadgeFor(op, desk)
	if err != nil {
		t.Fatal(err)
	}
	text := b.String()
	if !strings.HasPrefix(text, "QRDESK-BADGE-D-000007-0002-") {
		t.Fatalf("badge %s", text)
	}
	// Scanned in lower case with garbled separators it still reads back.
	scanned := "]Q1" + strings.ToLower(strings.ReplaceAll(text, "-", "ß")) + "\r"
	if !IsBadge(scanned) {
		t.Fatalf("IsBadge(%q) = false", scanned)
	}
	got, err := ParseBadge(scanned)
	if err != nil || got != b {
		t.Fatalf("ParseBadge: %+v %v, want %+v", got, err, b)
	}
	if err := keys.VerifyBadge(got, "李娜", desk); err != nil {
		t.Fatalf("VerifyBadge: %v", err)
	}
	// Not a label: Parse refuses it, whatever it is scanned as.
	if _, err := Parse(Normalize(text)); err == nil {
		t.Fatalf("Parse accepted the badge %s as a label", text)
	}
	t.Run("ErrOtherName", func(t *testing.T) {
		if err := keys.VerifyBadge(got, "李", desk); err != ErrBadSignature {
			t.Fatalf("verify under another name: %v", err)
		}
	})
	t.Run("ErrOtherList", func(t *testing.T) {
		for _, other := range []BadgeScope{{ID: "desk-2"}, {Shared: true, ID: "desk-1"}} {
			if err := keys.VerifyBadge(got, "李娜", other); err != ErrBadSignature {
				t.Fatalf("verify for the list %+v: %v", other, err)
			}
		}
		staff, err := keys.BadgeFor(Operator{ID: 7, StaffID: 12, Name: "李娜", BadgeVersion: 2}, BadgeScope{Shared: true, ID: keys.RingID()})
		if err != nil || !strings.HasPrefix(staff.String(), "QRDESK-BADGE-S-000012-0002-") {
			t.Fatalf("a staff list's badge names the member's staff id: %v %v", staff, err)
		}
	})
	t.Run("ErrOldFormat", func(t *testing.T) {
		old := strings.Replace(text, "-D-", "-", 1)
		if _, err := ParseBadge(old); err != ErrOldBadge {
			t.Fatalf("a badge of the first format: %v", err)
		}
	})
	t.Run("ErrOtherKeyRing", func(t *testing.T) {
		if err := badgeKeys(t).VerifyBadge(got, "李娜", desk); err == nil {
			t.Fatal("another key ring verified the badge")
		}
	})
	t.Run("ErrAltered", func(t *testing.T) {
		for i := len("QRDESK-BADGE-"); i < len(text); i++ {
			if text[i] == '-' {
				continue
			}
			for _, ch := range "0123456789ABCDEFGHJKLMNPQRSTUVWXYZ" {
				if byte(ch) == text[i] {
					continue
				}
				altered := text[:i] + string(ch) + text[i+1:]
				b, err := ParseBadge(altered)
				if err != nil {
					continue
				}
				if keys.VerifyBadge(b, "李娜", desk) == nil && b.OperatorID == 7 {
					t.Fatalf("altered badge %s verified", altered)
				}
			}
		}
	})
	t.Run("ErrIncomplete", func(t *testing.T) {
		if _, err := ParseBadge(text[:len(text)-1]); err == nil || !strings.Contains(err.Error(), "not read completely") {
			t.Fatalf("short badge: %v", err)
		}
	})
	// Labels and the scanner test label are not badges.
	if IsBadge("WH-261129-A0001-AX27VGKZJTLY-A9TF3Z2MT") || IsBadge(ScannerTestPayload) || IsBadge("") {
		t.Fatal("IsBadge took a label for a badge")
	}
}

func TestPINHash(t *testing.T) {
	h, err := HashPIN("4321")
	if err != nil {
		t.Fatal(err)
	}
	h2, _ := HashPIN("4321")
	if h == h2 || !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Fatalf("hashes %s %s: want salted argon2id", h, h2)
	}
	if !PINMatches(h, "4321") || PINMatches(h, "4322") || PINMatches(h, "") || PINMatches("", "4321") || PINMatches("$argon2id$x", "4321") {
		t.Fatal("PINMatches")
	}
	for pin, want := range map[string]string{"": "empty", "123": "has 3 digits", "12a4": "only contain the digits", "１２３４": "only contain the digits", "1234567890123": "at most 12"} {
		if err := CheckPIN(pin); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckPIN(%q) = %v, want %q", pin, err, want)
		}
	}
	if err := CheckPIN("0000"); err != nil {
		t.Fatal(err)
	}
}

// TestValidPINHash: what a desk makes passes; a PIN in clear, another
// algorithm, a weaker or a far costlier hash do not.
func TestValidPINHash(t *testing.T) {
	h, err := HashPIN("4321")
	if err != nil || !ValidPINHash(h) {
		t.Fatalf("a desk's hash %q: %v", h, err)
	}
	for _, bad := range []string{"4321", "", "$argon2i$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$" + strings.Repeat("A", 43),
		strings.Replace(h, "m=19456", "m=1024", 1), strings.Replace(h, "m=19456", "m=4194304", 1), strings.Replace(h, "t=2", "t=1000", 1)} {
		if ValidPINHash(bad) {
			t.Errorf("ValidPINHash(%q) = true", bad)
		}
	}
}
