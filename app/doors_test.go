package app

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"qrdesk/protocol"
)

// TestFrontEndsOnlyThroughService: the command line and the window reach
// the database only through Service (issue #12: no svc.Store, no type
// assertions to store interfaces, no store package in the window). The CLI
// opens the database in cli/common.go, and 'restore' replaces the file
// itself (cli/restore.go), before any service exists.
func TestFrontEndsOnlyThroughService(t *testing.T) {
	reachPast := regexp.MustCompile(`\.Store\b[^(]|\.\(app\.\w*Store\)|\bs\.db\.\w+\(`)
	for _, dir := range []string{"../cli", "../ui"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no sources in %s: %v", dir, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for i, line := range strings.Split(string(src), "\n") {
				if m := reachPast.FindString(line); m != "" && !strings.Contains(line, "s.db.Close()") {
					t.Errorf("%s:%d reaches past the service (%q): %s", f, i+1, m, strings.TrimSpace(line))
				}
			}
			base := filepath.Base(f)
			if strings.Contains(string(src), `"qrdesk/store"`) && (dir == "../ui" || (base != "common.go" && base != "restore.go")) {
				t.Errorf("%s imports the store package; only cli/common.go opens the database", f)
			}
		}
	}
}

// TestDeskLinksNoPostgres: the desk binary (the module root) links neither
// the server's database (serverdb) nor the PostgreSQL driver; the desk's
// database is store, and what both share is internal/sqlstore (issue #17).
func TestDeskLinksNoPostgres(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH")
	}
	out, err := exec.Command(goTool, "list", "-deps", "qrdesk").Output()
	if err != nil {
		t.Fatalf("go list -deps qrdesk: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.Contains(pkg, "github.com/jackc/pgx") || pkg == "qrdesk/serverdb" {
			t.Errorf("the desk binary links %s", pkg)
		}
	}
}

// TestProtocolIsALeaf: the desk–server protocol (package protocol) imports
// no package of qrdesk, so both sides can import it; its wire strings are
// defined there once (issue #17: the desk and the server each had their
// own "redeemed").
func TestProtocolIsALeaf(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH")
	}
	out, err := exec.Command(goTool, "list", "-deps", "qrdesk/protocol").Output()
	if err != nil {
		t.Fatalf("go list -deps qrdesk/protocol: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasPrefix(pkg, "qrdesk/") || pkg == "qrdesk" {
			if pkg != "qrdesk/protocol" {
				t.Errorf("package protocol imports %s", pkg)
			}
		}
	}
	if OutcomeRedeemed != Outcome(protocol.OutcomeRedeemed) || OutcomeAlreadyUsed != Outcome(protocol.OutcomeAlreadyUsed) {
		t.Error("the desk's outcomes are not the protocol's")
	}
}
