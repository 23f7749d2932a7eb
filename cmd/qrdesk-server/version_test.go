package main

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"qrdesk/protocol"
	"qrdesk/serverdb"
)

// TestVersionOfTheRealBinary: the built qrdesk-server prints its release
// and commit (from the Makefile's -ldflags, or what Go recorded of git),
// the protocol and both engines' schema versions, with no database.
func TestVersionOfTheRealBinary(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name        string
		ldflags     string
		wantRelease string
		wantCommit  string
	}{
		{"ldflags", "-X qrdesk/internal/buildinfo.release=9.8.7+test -X qrdesk/internal/buildinfo.commit=feedc0ffee12", "9.8.7+test", "feedc0ffee12"},
		// A plain go build: the commit Go recorded (vcs.revision), or
		// "unknown" when it recorded none (GOFLAGS=-buildvcs=false).
		{"vcs", "", "0.1.0", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bin := filepath.Join(dir, "qrdesk-server-"+tc.name)
			// -buildvcs=true: this machine's GOFLAGS may turn the stamp off.
			build := exec.Command("go", "build", "-buildvcs=true", "-ldflags", tc.ldflags, "-o", bin, ".")
			if out, err := build.CombinedOutput(); err != nil {
				t.Fatalf("build: %v\n%s", err, out)
			}
			if tc.wantCommit == "" {
				tc.wantCommit = "unknown"
				info, err := exec.Command("go", "version", "-m", bin).Output()
				if err != nil {
					t.Fatal(err)
				}
				for _, l := range strings.Split(string(info), "\n") {
					if f := strings.Fields(l); len(f) == 2 && strings.HasPrefix(f[1], "vcs.revision=") {
						tc.wantCommit = strings.TrimPrefix(f[1], "vcs.revision=")[:12]
					}
				}
			}
			for _, arg := range []string{"--version", "version"} {
				out, err := exec.Command(bin, arg, "--db", filepath.Join(dir, "absent.db")).CombinedOutput()
				if err != nil {
					t.Fatalf("%s: %v\n%s", arg, err, out)
				}
				lines := strings.Split(strings.TrimSpace(string(out)), "\n")
				if len(lines) != 2 {
					t.Fatalf("%s printed %q, want two lines", arg, out)
				}
				if want := "qrdesk-server " + tc.wantRelease + " (commit " + tc.wantCommit; !strings.HasPrefix(lines[0], want) {
					t.Errorf("%s: got %q, want it to start with %q", arg, lines[0], want)
				}
				want := "protocol " + itoa(protocol.Version) + ", schema " + itoa(serverdb.SchemaVersion(false)) + " (SQLite), " + itoa(serverdb.SchemaVersion(true)) + " (PostgreSQL)"
				if lines[1] != want {
					t.Errorf("%s: got %q, want %q", arg, lines[1], want)
				}
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
