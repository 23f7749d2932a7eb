package deploy

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAdminWithoutSystemd: on a machine that does not run systemd,
// qrdesk-server-admin says how to run the command directly, with the
// command as given (quoted as the shell reads it back), instead of
// passing on systemd-run's own errors.
func TestAdminWithoutSystemd(t *testing.T) {
	if _, err := os.Stat("/run/systemd/system"); err == nil {
		t.Skip("systemd runs here: the wrapper would run the command")
	}
	// A systemd-run that fails as the real one does without systemd, and
	// an id that says root, so the wrapper goes as far as it can.
	bin := t.TempDir()
	for name, body := range map[string]string{
		"systemd-run": "#!/bin/sh\necho 'System has not been booted with systemd as init system (PID 1). Can'\"'\"'t operate.' >&2\necho 'Failed to connect to bus: Host is down' >&2\nexit 1\n",
		"id":          "#!/bin/sh\necho 0\n",
	} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("sh", "qrdesk-server-admin", "station", "add", "Desk 1", "--letter", "A")
	cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
		t.Errorf("exit: got %v, want status 2", err)
	}
	got := string(out)
	for _, want := range []string{"does not run systemd", "Run it directly", "qrdesk-server station add 'Desk 1' --letter A", "QRDESK_SERVER_DB="} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	for _, raw := range []string{"booted with systemd", "bus"} {
		if strings.Contains(got, raw) {
			t.Errorf("output passes on systemd's %q:\n%s", raw, got)
		}
	}
}
