package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRevokedDeskCLI: after 'qrdesk-server station revoke', the desk's
// redeem says the server refused it (exit 1) and decides nothing alone;
// its sync says why (exit 3, not a usage error); a renewed token works.
func TestRevokedDeskCLI(t *testing.T) {
	cs := buildServer(t)
	token := cs.addStation(t, "Desk 1", "A")
	cs.start(t)
	s := newStation(t)
	s.run(t, "settings", "--station-name", "Desk 1")
	os.WriteFile(filepath.Join(s.dir, "sync.json"), []byte(fmt.Sprintf(`{"server":"http://%s","token":%q}`, cs.addr, token)), 0o600)
	var issued issueOut
	s.mustJSON(t, &issued, "issue", "--count", "2")
	if code, _, errOut := s.run(t, "sync"); code != 0 {
		t.Fatal(errOut)
	}
	if out, err := exec.Command(cs.bin, "station", "revoke", "Desk 1", "--db", cs.db).CombinedOutput(); err != nil {
		t.Fatalf("revoke: %v %s", err, out)
	}
	code, out, _ := s.run(t, "redeem", issued.Codes[0])
	if code != ExitRefused || !strings.Contains(out, "refused") || !strings.Contains(out, "revoked") {
		t.Fatalf("redeem at a revoked desk: exit %d\n%s", code, out)
	}
	if n := queryInt(t, s.openDB(t), `SELECT count(*) FROM codes WHERE status = 'used'`); n != 0 {
		t.Fatalf("the revoked desk redeemed alone (%d used)", n)
	}
	code, _, errOut := s.run(t, "sync")
	if code != ExitFailure || !strings.Contains(errOut, "revoked") || !strings.Contains(errOut, "station renew") {
		t.Fatalf("sync at a revoked desk: exit %d %s", code, errOut)
	}
	renewed, err := exec.Command(cs.bin, "station", "renew", "Desk 1", "--db", cs.db).Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(renewed)), "\n")
	os.WriteFile(filepath.Join(s.dir, "sync.json"), []byte(fmt.Sprintf(`{"server":"http://%s","token":%q}`, cs.addr, lines[len(lines)-1])), 0o600)
	if code, out, _ := s.run(t, "redeem", issued.Codes[0]); code != ExitOK || !strings.Contains(out, "Redeemed") {
		t.Fatalf("redeem with the renewed token: exit %d %s", code, out)
	}
}
