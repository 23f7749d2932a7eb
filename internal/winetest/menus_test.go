package winetest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestWineMakesNoMenusInTheHome: wine's menu builder turns every Start-menu
// entry a program makes (the MSI's two shortcuts) into a Linux menu entry
// in the developer's own home (~/.local/share/applications/wine,
// ~/.config/menus), which make test left behind. scripts/wine-exec.sh, the
// harness every wine process of the tests starts through, turns the menu
// builder off for the program it runs. Checked with a stand-in for wine
// (QRDESK_WINE) that records its environment: this test runs on Linux
// without wine, in every go test run.
func TestWineMakesNoMenusInTheHome(t *testing.T) {
	if _, err := exec.LookPath("x86_64-w64-mingw32-gcc"); err != nil {
		t.Skip("wine-exec.sh needs gcc-mingw-w64-x86-64 (make deps)")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	seen := filepath.Join(dir, "env")
	fake := filepath.Join(dir, "wine64")
	script := "#!/bin/sh\nenv > '" + seen + "'\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	prefix := filepath.Join(dir, "prefix")
	dll := filepath.Join(prefix, "drive_c", "windows", "system32", "bcryptprimitives.dll")
	if err := os.MkdirAll(filepath.Dir(dll), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(dll, nil, 0o644) // a prefix made before: nothing is set up again
	for _, overrides := range []string{"", "mshtml=d"} {
		cmd := exec.Command(filepath.Join(root, "scripts", "wine-exec.sh"), "msiexec", "/i", "qrdesk.msi", "/qn")
		cmd.Env = append(os.Environ(), "QRDESK_WINE="+fake, "QRDESK_WINEPREFIX="+prefix, "WINEDLLOVERRIDES="+overrides)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("wine-exec.sh: %v\n%s", err, out)
		}
		env, err := os.ReadFile(seen)
		if err != nil {
			t.Fatal(err)
		}
		var got string
		for _, line := range strings.Split(string(env), "\n") {
			if v, ok := strings.CutPrefix(line, "WINEDLLOVERRIDES="); ok {
				got = v
			}
		}
		if !strings.Contains(got, "winemenubuilder.exe=d") || (overrides != "" && !strings.Contains(got, overrides)) {
			t.Errorf("with WINEDLLOVERRIDES=%q wine ran with WINEDLLOVERRIDES=%q: want the menu builder off (winemenubuilder.exe=d), the caller's kept", overrides, got)
		}
	}
}
