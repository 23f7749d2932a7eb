package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"qrdesk/internal/columns"
)

type operatorOut struct {
	ID           int64  `json:"id"`
	Name         string `json:"name"`
	Supervisor   bool   `json:"supervisor"`
	BadgeVersion int    `json:"badge_version"`
	RemovedAt    int64  `json:"removed_at"`
}

func TestOperatorsAddListRemove(t *testing.T) {
	s := newStation(t)
	if code, out, errOut := s.runStdin(t, "4321\n", "operators", "add", "li"); code != ExitOK || !strings.Contains(out, "added operator li") {
		t.Fatalf("add li: exit %d %q %q", code, out, errOut)
	}
	if code, out, errOut := s.runStdin(t, "98765\n", "operators", "add", "--supervisor", "王芳"); code != ExitOK || !strings.Contains(out, "added supervisor 王芳") {
		t.Fatalf("add supervisor: exit %d %q %q", code, out, errOut)
	}
	var ops []operatorOut
	s.mustJSON(t, &ops, "operators", "list")
	if len(ops) != 2 || ops[0].Name != "li" || ops[0].Supervisor || ops[1].Name != "王芳" || !ops[1].Supervisor {
		t.Fatalf("list: %+v", ops)
	}
	code, out, _ := s.run(t, "operators", "list")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != ExitOK || len(lines) != 3 || !strings.HasPrefix(lines[0], "NAME") {
		t.Fatalf("list (human): %d %q", code, out)
	}
	// The columns line up on a terminal, Chinese names too (two columns a character).
	for _, l := range lines[1:] {
		role := strings.Index(l, "operator") + strings.Index(l, "supervisor") + 1
		if at := columns.Width(l[:role]); at != strings.Index(lines[0], "ROLE") {
			t.Fatalf("the role of %q starts at column %d, the header at %d:\n%s", l, at, strings.Index(lines[0], "ROLE"), out)
		}
	}
	// The PIN is in the database only as an argon2id hash.
	data, _ := os.ReadFile(filepath.Join(s.dir, "qrdesk.db"))
	if strings.Contains(string(data), "98765") || !strings.Contains(string(data), "$argon2id$") {
		t.Fatal("the database holds the PIN itself, or no argon2id hash")
	}

	t.Run("ErrBadInput", func(t *testing.T) {
		cases := []struct {
			stdin string
			args  []string
			want  string
		}{
			{"12\n", []string{"add", "zhao"}, "the PIN has 2 digits: use at least 4"},
			{"12ab\n", []string{"add", "zhao"}, "only contain the digits 0–9"},
			{"", []string{"add", "zhao"}, "the PIN is empty"},
			{"1234567890123\n", []string{"add", "zhao"}, "use at most 12"},
			{"1234\n", []string{"add", "LI"}, "there is already an operator called LI"},
			{"1234\n", []string{"add", " zhao"}, "starts or ends with a space"},
			{"1234\n", []string{"add", strings.Repeat("x", 41)}, "at most 40"},
			{"", []string{"add"}, "give exactly one operator NAME"},
			{"", []string{"remove", "nobody"}, "there is no operator called nobody"},
			{"1234\n", []string{"set-pin", "nobody"}, "there is no operator called nobody"},
			{"1\n", []string{"set-pin", "li"}, "the PIN has 1 digit: use at least 4"},
			{"", []string{"fire", "li"}, `"fire" is not an operators command`},
			{"", []string{"list", "--supervisor"}, "--supervisor goes with 'operators add'"},
			{"", nil, "say what to do"},
		}
		for _, c := range cases {
			code, _, errOut := s.runStdin(t, c.stdin, append([]string{"operators"}, c.args...)...)
			if code == ExitOK || !strings.Contains(errOut, c.want) {
				t.Errorf("operators %q (stdin %q): exit %d %q, want an error with %q", c.args, c.stdin, code, errOut, c.want)
			}
		}
	})

	if code, out, errOut := s.runStdin(t, "13579\n", "operators", "set-pin", "li"); code != ExitOK || !strings.Contains(out, "li has a new PIN") {
		t.Fatalf("set-pin: %d %q %q", code, out, errOut)
	}
	if n := countAudit(t, s, "pin_change"); n != 1 {
		t.Fatalf("%d pin_change audit rows, want 1", n)
	}
	if code, out, errOut := s.run(t, "operators", "remove", "LI"); code != ExitOK || !strings.Contains(out, "removed li") {
		t.Fatalf("remove: %d %q %q", code, out, errOut)
	}
	s.mustJSON(t, &ops, "operators", "list")
	if len(ops) != 1 || ops[0].Name != "王芳" {
		t.Fatalf("after remove: %+v", ops)
	}
	s.mustJSON(t, &ops, "operators", "list", "--all")
	if len(ops) != 2 || ops[1].Name != "li" || ops[1].RemovedAt == 0 {
		t.Fatalf("list --all: %+v", ops)
	}
	// A removed name may be added again: a new operator with a new id.
	var again operatorOut
	code, out, errOut := s.runStdin(t, "1111\n", "operators", "add", "li", "--json")
	if code != ExitOK || json.Unmarshal([]byte(out), &again) != nil || again.ID == ops[1].ID {
		t.Fatalf("add li again: %d %q %q (old id %d)", code, out, errOut, ops[1].ID)
	}
	// Every change is audited.
	if n := countAudit(t, s, "operator_add"); n != 3 {
		t.Fatalf("%d operator_add audit rows, want 3", n)
	}
	if n := countAudit(t, s, "operator_remove"); n != 1 {
		t.Fatalf("%d operator_remove audit rows, want 1", n)
	}
}

func countAudit(t *testing.T, s *station, action string) int {
	t.Helper()
	out, err := exec.Command("sqlite3", filepath.Join(s.dir, "qrdesk.db"), "SELECT count(*) FROM audit WHERE action = '"+action+"'").Output()
	if err != nil {
		t.Fatalf("sqlite3: %v", err)
	}
	var n int
	json.Unmarshal([]byte(strings.TrimSpace(string(out))), &n)
	return n
}

// TestDeskModeNeedsASupervisor: desk mode opens on a desk that never had
// a supervisor (the window asks for the first one: ui/firstsupervisor.go)
// and on one with a supervisor; a desk whose supervisors were all removed
// is refused with how to add one, since a picker at the counter must not
// make themselves one.
func TestDeskModeNeedsASupervisor(t *testing.T) {
	s := newStation(t)
	// Past the check: this test build has no window.
	opens := func(what string) {
		t.Helper()
		if code, _, errOut := s.run(t, "gui", "--desk"); code != ExitFailure || !strings.Contains(errOut, "has no window") {
			t.Fatalf("gui --desk %s: %d %q", what, code, errOut)
		}
	}
	opens("on a desk without operators")
	s.runStdin(t, "4321\n", "operators", "add", "li")
	opens("with a picker only")
	s.runStdin(t, "8765\n", "operators", "add", "--supervisor", "wang")
	opens("with a supervisor")
	if code, _, errOut := s.run(t, "gui", "--desk", "--screen", "issue"); code != ExitUsage || !strings.Contains(errOut, "leave out --screen issue") {
		t.Fatalf("gui --desk --screen issue: %d %q", code, errOut)
	}
	s.run(t, "operators", "remove", "wang")
	if code, _, errOut := s.run(t, "gui", "--desk"); code != ExitUsage || !strings.Contains(errOut, "every supervisor of this desk was removed") {
		t.Fatalf("gui --desk with its supervisor removed: %d %q", code, errOut)
	}
}

// TestBadgesPrintedAndRefusedByRedeem prints the badge sheet, reads every QR
// back from the PDF, and checks a badge is never taken for a label.
func TestBadgesPrintedAndRefusedByRedeem(t *testing.T) {
	for _, tool := range []string{"pdftoppm", "zbarimg", "pdftotext"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed: run 'make deps' (scripts/install-deps.sh)", tool)
		}
	}
	s := newStation(t)
	pdf := filepath.Join(t.TempDir(), "badges.pdf")
	if code, _, errOut := s.run(t, "print", "--badges", "-o", pdf); code != ExitUsage || !strings.Contains(errOut, "no operators to print badges for") {
		t.Fatalf("badges without operators: %d %q", code, errOut)
	}
	s.runStdin(t, "4321\n", "operators", "add", "li")
	s.runStdin(t, "8765\n", "operators", "add", "--supervisor", "wang")
	if code, out, errOut := s.run(t, "print", "--badges", "-o", pdf); code != ExitOK || !strings.Contains(out, "2 badges on L7160") {
		t.Fatalf("print --badges: %d %q %q", code, out, errOut)
	}
	dir := t.TempDir()
	if out, err := exec.Command("pdftoppm", "-r", "300", "-png", pdf, filepath.Join(dir, "page")).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v %s", err, out)
	}
	pages, _ := filepath.Glob(filepath.Join(dir, "page*.png"))
	out, _ := exec.Command("zbarimg", append([]string{"-q", "--raw"}, pages...)...).Output()
	badges := strings.Fields(string(out))
	sort.Strings(badges)
	if len(badges) != 2 || !strings.HasPrefix(badges[0], "QRDESK-BADGE-D-000001-0001-") || !strings.HasPrefix(badges[1], "QRDESK-BADGE-D-000002-0001-") {
		t.Fatalf("decoded %q from the badge sheet, want the badges of operators 1 and 2", badges)
	}
	text, _ := exec.Command("pdftotext", pdf, "-").Output()
	if !strings.Contains(string(text), "OPERATOR") || !strings.Contains(string(text), "li") || !strings.Contains(string(text), "SUPERVISOR") {
		t.Fatalf("the sheet does not name the operators: %q", text)
	}

	// redeem and check refuse a badge, with a message that says what it is,
	// and the badge's text stays out of the scan log.
	code, outText, _ := s.run(t, "redeem", "--operator", "li", badges[0]) // a desk with operators records only their names
	if code != ExitRefused || !strings.Contains(outText, "This is an operator badge, not a label") {
		t.Fatalf("redeem a badge: exit %d %q", code, outText)
	}
	var v struct{ Outcome, Code string }
	s.mustJSON(t, &v, "check", strings.ToLower(badges[1]))
	if v.Outcome != "operator_badge" {
		t.Fatalf("check a badge: %+v", v)
	}
	db, _ := exec.Command("sqlite3", filepath.Join(s.dir, "qrdesk.db"), "SELECT raw || '|' || code || '|' || outcome FROM scans").Output()
	if got := strings.TrimSpace(string(db)); got != `"(operator badge)"||operator_badge` {
		t.Fatalf("scan log row %q", got)
	}
	data, _ := os.ReadFile(filepath.Join(s.dir, "qrdesk.log"))
	if strings.Contains(string(data), badges[0][len(badges[0])-16:]) {
		t.Fatal("the badge's signature is in qrdesk.log")
	}

	// A renewed badge replaces the old one.
	if code, out, errOut := s.run(t, "operators", "renew-badge", "li"); code != ExitOK || !strings.Contains(out, "old badge no longer works") {
		t.Fatalf("renew-badge: %d %q %q", code, out, errOut)
	}
	var ops []operatorOut
	s.mustJSON(t, &ops, "operators", "list")
	if ops[0].Name != "li" || ops[0].BadgeVersion != 2 {
		t.Fatalf("after renew: %+v", ops)
	}
}
