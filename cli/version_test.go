package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"qrdesk/internal/buildinfo"
	"qrdesk/protocol"
	"qrdesk/store"
)

// TestVersionOfTheRealBinary: the built qrdesk prints the release and
// commit the Makefile links in, the protocol and the desk database's
// schema, for 'version' and '--version', without a database or key file.
func TestVersionOfTheRealBinary(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "qrdesk")
	build := exec.Command("go", "build", "-tags", "qrdesk_nogui", "-ldflags",
		"-X qrdesk/internal/buildinfo.release=9.8.7+test -X qrdesk/internal/buildinfo.commit=feedc0ffee12", "-o", bin, "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	want := "qrdesk 9.8.7+test (commit feedc0ffee12)\nprotocol " + strconv.Itoa(protocol.Version) + ", schema " + strconv.Itoa(store.SchemaVersion()) + " (desk database)\n"
	for _, arg := range []string{"version", "--version"} {
		cmd := exec.Command(bin, arg)
		cmd.Env = append(os.Environ(), "QRDESK_DB="+filepath.Join(dir, "absent", "qrdesk.db"))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", arg, err, out)
		}
		if string(out) != want {
			t.Errorf("qrdesk %s printed\n%s\nwant\n%s", arg, out, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "absent")); err == nil {
		t.Error("qrdesk version created a data folder")
	}
}

// TestBaseReleaseIsFyneAppVersion: a build without -ldflags reports the
// release FyneApp.toml (the window's and the packages') says.
func TestBaseReleaseIsFyneAppVersion(t *testing.T) {
	data, err := os.ReadFile("../FyneApp.toml")
	if err != nil {
		t.Fatal(err)
	}
	if want := `Version = "` + buildinfo.BaseRelease + `"`; !strings.Contains(string(data), want) {
		t.Errorf("FyneApp.toml does not say %s", want)
	}
}
