package cli

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
