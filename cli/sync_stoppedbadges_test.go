package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"qrdesk/internal/testclock"
)

// TestSyncSaysWhichBadgesStopped: a desk with operators of its own (li,
// zhang, their badges printed) joins a server whose staff list holds a
// newer badge of li; later the server removes zhang. 'qrdesk sync' says,
// at the sync that stopped them, that li's printed badges no longer sign
// in and how to print new ones, and that zhang was removed; the next
// picker would otherwise learn it from BADGE REFUSED at the counter.
func TestSyncSaysWhichBadgesStopped(t *testing.T) {
	cs := buildServer(t)
	token := cs.addStation(t, "Desk A", "A")
	server := func(stdin string, args ...string) {
		t.Helper()
		cmd := exec.Command(cs.bin, append(args, "--db", cs.db)...)
		cmd.Env = append(os.Environ(), testclock.Env(testNow()))
		cmd.Stdin = strings.NewReader(stdin)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("qrdesk-server %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	server("1111\n", "operators", "add", "li")
	server("", "operators", "renew-badge", "li")
	cs.start(t)

	s := newStation(t)
	s.runStdin(t, "4321\n", "operators", "add", "li")
	s.runStdin(t, "2468\n", "operators", "add", "zhang")
	if code, _, errOut := s.run(t, "print", "--badges", "-o", filepath.Join(t.TempDir(), "badges.pdf")); code != ExitOK {
		t.Fatalf("print --badges: %d %q", code, errOut)
	}
	os.WriteFile(filepath.Join(s.dir, "sync.json"), []byte(fmt.Sprintf(`{"server":"http://%s","token":%q}`, cs.addr, token)), 0o600)
	var said strings.Builder
	for range 2 { // the feed brings back what the first sync sent
		_, out, errOut := s.run(t, "sync")
		said.WriteString(out + errOut)
	}
	if !strings.Contains(said.String(), "the badges printed here for li no longer sign in") || !strings.Contains(said.String(), "qrdesk print --badges") {
		t.Fatalf("joining the server stopped li's badge, and sync said:\n%s", said.String())
	}
	cs.stop()
	server("", "operators", "remove", "zhang")
	cs.start(t)
	_, out, errOut := s.run(t, "sync")
	if !strings.Contains(out+errOut, "zhang") || !strings.Contains(out+errOut, "removed from the staff list") {
		t.Fatalf("the server removed zhang, and sync said:\n%s%s", out, errOut)
	}
}
