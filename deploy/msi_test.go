package deploy

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMSIOffersNoChange: Programs and Features offered "Change" for qrdesk,
// and the MSI has no features or options to change: ARPNOMODIFY takes the
// button away (Uninstall stays; Repair stays, which reinstalls missing
// files). The MSI is built from deploy/windows/qrdesk.wxs with wixl, as
// scripts/build-windows.sh builds it, here with placeholder programs (the
// tables do not depend on what the files hold), and its Property table is
// read back with msiinfo. On Linux, without wine.
func TestMSIOffersNoChange(t *testing.T) {
	for _, tool := range []string{"wixl", "msiinfo"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (msitools; scripts/install-deps.sh installs it)", tool)
		}
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"qrdesk.exe", "qrdeskw.exe", "qrdesk-server.exe", "qrdesk.ico"} {
		if err := os.WriteFile(filepath.Join(bin, f), []byte("placeholder "+f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wxs, err := filepath.Abs("windows/qrdesk.wxs")
	if err != nil {
		t.Fatal(err)
	}
	msi := filepath.Join(dir, "qrdesk.msi")
	build := exec.Command("wixl", "-a", "x64", "-D", "Version=1.7.1", "-D", "BinDir=bin", "-D", "IconFile=bin/qrdesk.ico", "-o", msi, wxs)
	build.Dir = dir // wixl takes source paths relative to the current folder only
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("wixl: %v\n%s", err, out)
	}
	out, err := exec.Command("msiinfo", "export", msi, "Property").Output()
	if err != nil {
		t.Fatalf("msiinfo export Property: %v", err)
	}
	props := map[string]string{}
	for _, line := range strings.Split(strings.ReplaceAll(string(out), "\r", ""), "\n") {
		if k, v, ok := strings.Cut(line, "\t"); ok {
			props[k] = v
		}
	}
	if props["ARPNOMODIFY"] != "1" {
		t.Errorf("the MSI's ARPNOMODIFY is %q, want 1: Programs and Features offers Change with nothing to change", props["ARPNOMODIFY"])
	}
	if props["ProductName"] != "qrdesk" || props["ARPPRODUCTICON"] == "" {
		t.Errorf("the Property table: %v", props)
	}
}
