package deploy

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// versionAt runs scripts/version.sh kind on a checkout whose one commit
// was made at the given time (RFC 3339), with FyneApp.toml's release.
func versionAt(t *testing.T, kind, release, at string) (string, error) {
	t.Helper()
	src := t.TempDir()
	os.WriteFile(filepath.Join(src, "FyneApp.toml"), []byte("[Details]\nVersion = \""+release+"\"\n"), 0o644)
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", src}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE="+at, "GIT_COMMITTER_DATE="+at, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t", "TZ=Asia/Tokyo")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", "FyneApp.toml")
	git("commit", "-q", "-m", "at "+at)
	script, _ := filepath.Abs("../scripts/version.sh")
	cmd := exec.Command("bash", script, kind)
	cmd.Env = append(os.Environ(), "QRDESK_SRC="+src, "TZ=Asia/Tokyo")
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// TestVersionsIncreaseWithTime: builds of later commits have greater
// versions on every package, two builds of one day included (dpkg used
// to order those by commit hash and warned "downgrading"; the MSI was
// always the same), whatever the machine's time zone. The MSI's version
// keeps within Windows Installer's limits (255.255.65535), and a release
// or a time the mapping cannot hold is refused, not wrapped around.
func TestVersionsIncreaseWithTime(t *testing.T) {
	times := []string{ // commit times in order, with each step the build after
		"2026-01-01T00:00:00Z",
		"2026-12-04T09:00:00Z",
		"2026-12-04T09:01:00Z", // a minute later
		"2026-12-04T15:30:00Z", // the same day
		"2026-12-04T23:59:59Z",
		"2026-12-05T00:00:00Z", // past midnight UTC
		"2027-03-28T01:30:00Z",
		"2031-06-15T12:00:00Z",
		"2057-11-01T00:00:00Z",
	}
	var debs, msis []string
	for _, at := range times {
		deb, err := versionAt(t, "deb", "0.1.0", at)
		if err != nil {
			t.Fatalf("deb at %s: %v %s", at, err, deb)
		}
		msi, err := versionAt(t, "msi", "0.1.0", at)
		if err != nil {
			t.Fatalf("msi at %s: %v %s", at, err, msi)
		}
		debs, msis = append(debs, deb), append(msis, msi)
	}
	if want := "0.1.0+git20261204.153000."; !strings.HasPrefix(debs[3], want) {
		t.Errorf("deb version %s, want %s… (the commit's UTC date and time)", debs[3], want)
	}
	limits := []int{255, 255, 65535}
	for i, v := range msis {
		parts := strings.Split(v, ".")
		if len(parts) != 3 {
			t.Fatalf("msi version %q is not A.B.C", v)
		}
		for j, p := range parts {
			if n, err := strconv.Atoi(p); err != nil || n < 0 || n > limits[j] {
				t.Errorf("msi version %s (%s): field %d beyond Windows Installer's %d", v, times[i], j+1, limits[j])
			}
		}
	}
	dpkg, err := exec.LookPath("dpkg")
	for i := 1; i < len(times); i++ {
		if err == nil {
			if out, err := exec.Command(dpkg, "--compare-versions", debs[i-1], "lt", debs[i]).CombinedOutput(); err != nil {
				t.Errorf("dpkg: %s (%s) is not older than %s (%s) %s", debs[i-1], times[i-1], debs[i], times[i], out)
			}
		}
		if !msiLess(msis[i-1], msis[i]) {
			t.Errorf("msi: %s (%s) is not older than %s (%s)", msis[i-1], times[i-1], msis[i], times[i])
		}
	}
	// A newer release outranks every build of an older one.
	if next, err := versionAt(t, "msi", "0.2.0", times[1]); err != nil || !msiLess(msis[len(msis)-1], next) {
		t.Errorf("msi of release 0.2.0 %s (%v) is not newer than 0.1.0's last %s", next, err, msis[len(msis)-1])
	}
	for _, tc := range []struct{ release, at, want string }{
		{"16.0.0", times[1], "a major and a minor of 0 to 15"},
		{"0.1.0", "2025-12-31T23:59:00Z", "outside 2026-01-01"},
		{"0.1.0", "2058-01-01T00:00:00Z", "outside 2026-01-01"},
	} {
		if out, err := versionAt(t, "msi", tc.release, tc.at); err == nil || !strings.Contains(out, tc.want) {
			t.Errorf("msi of %s at %s: %v %q, want a refusal saying %q", tc.release, tc.at, err, out, tc.want)
		}
	}
	mk, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"VERSION ?= $(shell bash scripts/version.sh deb)", "WIN_VERSION ?= $(shell bash scripts/version.sh msi)"} {
		if !strings.Contains(string(mk), want) {
			t.Errorf("the Makefile does not set %s", want)
		}
	}
}

// msiLess compares two A.B.C versions as Windows Installer does.
func msiLess(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := range 3 {
		x, _ := strconv.Atoi(pa[i])
		y, _ := strconv.Atoi(pb[i])
		if x != y {
			return x < y
		}
	}
	return false
}
