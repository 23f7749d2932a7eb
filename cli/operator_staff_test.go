package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"qrdesk/app"
	"qrdesk/store"
)

// TestOperatorMustBeOnTheStaffList: a desk with operators li and
// supervisor wang. Every command that records who did it (redeem, issue,
// disable, replace, undo, print, close-day, settings) refuses a name the
// staff list does not hold, with a sentence that says what to do, and
// does nothing; the list's own names are taken in any case and recorded as
// the list spells them. A desk without operators records any name, as
// before. The command line used to record "bob" as given.
func TestOperatorMustBeOnTheStaffList(t *testing.T) {
	s := newStation(t)
	var issued struct{ Codes []string }
	s.mustJSON(t, &issued, "issue", "--count", "3", "--operator", "anyone")
	s.runStdin(t, "4321\n", "operators", "add", "li")
	s.runStdin(t, "8765\n", "operators", "add", "--supervisor", "wang")
	code0 := issued.Codes[0]
	for _, args := range [][]string{
		{"redeem", code0},
		{"issue", "--count", "1"},
		{"disable", "--reason", "torn", code0},
		{"replace", "--reason", "torn", code0},
		{"undo", "--reason", "wrong parcel", code0},
		{"close-day", "--expire-unused"},
		{"print", "--batch", "1", "-o", filepath.Join(t.TempDir(), "batch.pdf")},
		{"settings", "--daily", "50"},
	} {
		code, out, errOut := s.run(t, append(args, "--operator", "bob")...)
		if code != ExitUsage || !strings.Contains(errOut, `"bob" is not on this desk's staff list`) || !strings.Contains(errOut, "qrdesk operators list") {
			t.Errorf("%s --operator bob: exit %d, %q %q; want a usage error naming the staff list", args[0], code, out, errOut)
		}
	}
	// Nothing was done under bob.
	var v struct{ Outcome string }
	s.mustJSON(t, &v, "check", code0)
	if v.Outcome != "valid" {
		t.Fatalf("after the refusals the label is %s", v.Outcome)
	}
	// The list's names, in any case, as the list spells them.
	var r struct{ Outcome, Operator string }
	s.mustJSON(t, &r, "redeem", "--operator", "LI", code0)
	if r.Outcome != "redeemed" {
		t.Fatalf("li's redemption: %+v", r)
	}
	if code, out, errOut := s.run(t, "undo", "--reason", "wrong parcel", "--operator", "Wang", code0); code != ExitOK {
		t.Fatalf("wang's undo: exit %d %q %q", code, out, errOut)
	}
	out, err := exec.Command("sqlite3", filepath.Join(s.dir, "qrdesk.db"), "SELECT operator FROM scans WHERE outcome = 'redeemed'").Output()
	if got := strings.TrimSpace(string(out)); err != nil || got != "li" {
		t.Fatalf("the redemption is recorded under %q (%v), want li as the list spells it", got, err)
	}
}

// TestMisreadBadgeIsNotLogged: a badge read with one letter of its marker
// wrong ("QRDESK-BADGF-…") is not a label: it is refused as a badge, and
// neither the scan log nor qrdesk.log holds its text (its signature is the
// credential). It used to be logged in full as a bad label scan.
func TestMisreadBadgeIsNotLogged(t *testing.T) {
	s := newStation(t)
	s.runStdin(t, "4321\n", "operators", "add", "li")
	badge := func() string { // li's badge, as the badge sheet prints it
		ctx := context.Background()
		keys, err := app.LoadKeys(filepath.Join(s.dir, "qrdesk.key"), false)
		if err != nil {
			t.Fatal(err)
		}
		db, err := store.Open(ctx, filepath.Join(s.dir, "qrdesk.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		staff := app.NewOperators(db, keys, testNow)
		op, err := staff.Find(ctx, "li")
		if err != nil {
			t.Fatal(err)
		}
		b, err := staff.Badge(op)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}()
	for _, misread := range []string{strings.Replace(badge, "BADGE", "BADGF", 1), strings.Replace(badge, "BADGE", "BADE", 1), "X" + badge} {
		code, outText, _ := s.run(t, "redeem", "--operator", "li", misread)
		if code != ExitRefused || !strings.Contains(outText, "operator badge") {
			t.Errorf("redeem %q: exit %d %q, want refused as a badge", misread, code, outText)
		}
	}
	sig := badge[len(badge)-app.BadgeSignatureLen:]
	db, _ := exec.Command("sqlite3", filepath.Join(s.dir, "qrdesk.db"), "SELECT raw || '|' || code FROM scans").Output()
	data, _ := os.ReadFile(filepath.Join(s.dir, "qrdesk.log"))
	if strings.Contains(string(db), sig) || strings.Contains(string(data), sig) {
		t.Fatalf("a misread badge's signature is logged:\nscans: %s\nqrdesk.log: %s", db, data)
	}
}
