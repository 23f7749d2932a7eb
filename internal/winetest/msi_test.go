//go:build linux

package winetest

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// buildMSI runs scripts/build-windows.sh for version with the command-line
// qrdesk.exe (QRDESK_WINDOWS_NOGUI=1: no cgo, seconds; make windows builds
// the window) and returns the MSI's path.
func (h *harness) buildMSI(t *testing.T, version string) string {
	t.Helper()
	dist := t.TempDir()
	cmd := exec.Command("bash", "scripts/build-windows.sh", version)
	cmd.Dir = h.root
	cmd.Env = append(os.Environ(), "QRDESK_WINDOWS_NOGUI=1", "DIST="+dist)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build-windows.sh %s: %v\n%s", version, err, out)
	}
	// A space in the folder, as in a Downloads folder on Windows.
	msi := filepath.Join(dist, "my downloads", "qrdesk-"+version+"-x64.msi")
	os.MkdirAll(filepath.Dir(msi), 0o755)
	if err := os.Rename(filepath.Join(dist, "qrdesk-"+version+"-x64.msi"), msi); err != nil {
		t.Fatal(err)
	}
	return msi
}

// winPath is the Windows name of a Linux path (wine's Z: drive).
func winPath(p string) string { return `Z:` + strings.ReplaceAll(p, "/", `\`) }

// TestMSIUnderWine: the MSI installs into Program Files with the two
// Start-menu entries and puts qrdesk on PATH (a new command prompt runs
// 'qrdesk'); the pickup-desk entry, started on the fresh desk, goes on to
// open the window, which asks for the first supervisor
// (TestFirstSupervisorUnderWine types one in; this MSI's programs are the
// command-line build, so its window program says in a dialog, and in
// qrdesk.log, that it has no window, instead of doing nothing); the
// installed qrdesk.exe issues, prints through the
// Windows spooler to a CUPS queue (every label of the spooled job decodes
// to its code) and redeems, refusing a second use; a newer MSI replaces
// the old one and keeps the data, with qrdesk on PATH once; uninstalling
// removes the program and its PATH entry and keeps the data.
func TestMSIUnderWine(t *testing.T) {
	if _, err := exec.LookPath("wixl"); err != nil && os.Getenv("QRDESK_TEST_WINDOWS") == "1" {
		t.Fatal("wixl is not installed: run 'make deps' (Debian package wixl)")
	}
	h := newHarness(t)
	// A prefix of its own (installs and uninstalls change it) with a
	// private CUPS queue as its Windows printer.
	c := h.privateCUPS(t, "QRDESK_MSI")
	// A display for every wine program of the prefix (its desktop process,
	// started by the first, owns every window), so that the dialogs the
	// window program shows can be seen and answered.
	var s *screen
	if tool := displayTools(); tool == "" {
		s = &screen{t: t, display: xvfb(t)}
		h.extraEnv = append(h.extraEnv, "DISPLAY="+s.display)
	} else {
		t.Logf("no display (%s is missing): the pickup desk's dialog is checked through qrdesk.log only", tool)
	}
	older, newer := h.buildMSI(t, "0.1.0"), h.buildMSI(t, "0.1.1")

	h.mustWine(t, "msiexec", "/i", winPath(older), "/qn")
	progDir := filepath.Join(h.prefix, "drive_c", "Program Files", "qrdesk")
	for _, f := range []string{"qrdesk.exe", "qrdeskw.exe", "qrdesk-server.exe"} {
		if _, err := os.Stat(filepath.Join(progDir, f)); err != nil {
			t.Fatalf("installed: %v", err)
		}
	}
	// The desk program once: the Start menu's qrdeskw.exe is a launcher
	// of qrdesk.exe (cmd/qrdeskw), not a second build of the desk.
	if fi, err := os.Stat(filepath.Join(progDir, "qrdeskw.exe")); err == nil && fi.Size() > 4<<20 {
		t.Errorf("qrdeskw.exe is %d bytes: the MSI carries the desk program twice", fi.Size())
	}
	// ALLUSERS=1 (a per-machine MSI): Windows puts the entries in the
	// common Start menu; wine 8.0 puts them in the installing user's.
	menu := filepath.Join(h.prefix, "drive_c", "ProgramData", "Microsoft", "Windows", "Start Menu", "Programs", "qrdesk")
	if _, err := os.Stat(menu); err != nil {
		menu = filepath.Join(h.home(), "AppData", "Roaming", "Microsoft", "Windows", "Start Menu", "Programs", "qrdesk")
	}
	lnk, err := os.ReadFile(filepath.Join(menu, "qrdesk pickup desk.lnk"))
	if err != nil {
		t.Fatalf("Start-menu entry: %v", err)
	}
	if !strings.Contains(utf16le(lnk), "gui --desk --screen scan") || !strings.Contains(utf16le(lnk), "qrdeskw.exe") {
		t.Errorf("the pickup-desk shortcut does not start qrdeskw.exe gui --desk --screen scan")
	}
	if _, err := os.Stat(filepath.Join(menu, "qrdesk.lnk")); err != nil {
		t.Errorf("Start-menu entry: %v", err)
	}

	// qrdesk on PATH: a new command prompt finds it.
	if out := h.mustWine(t, "cmd", "/c", "qrdesk", "version"); !strings.HasPrefix(out, "qrdesk 0.1.0") {
		t.Fatalf("'qrdesk version' in a new command prompt: %q", out)
	}

	// The pickup desk, started from its shortcut on the fresh desk (nobody
	// set it up): it no longer stops there for want of a supervisor; this
	// build has no window, and a dialog says so, the same goes to
	// qrdesk.log, and the program waits for the dialog to be answered.
	program, args := shortcutCommand(t, lnk)
	started := time.Now()
	exited := h.launch(t, []string{"LC_ALL=en_US.UTF-8"}, program, args...)
	logPath := filepath.Join(h.machineData(), "qrdesk.log")
	var logged string
	poll(t, time.Minute, "the pickup desk's start-up failure in qrdesk.log", func() bool {
		b, _ := os.ReadFile(logPath)
		logged = string(b)
		return strings.Contains(logged, "the window could not start")
	})
	if !strings.Contains(logged, "has no window") || strings.Contains(logged, "supervisor") {
		t.Fatalf("qrdesk.log says:\n%s", logged)
	}
	if s != nil {
		if code, ended := exited(); ended {
			t.Fatalf("the pickup desk ended (exit %d) without waiting for its dialog to be answered", code)
		}
		s.dialog("qrdesk could not start")
	}
	poll(t, time.Minute, "the pickup desk to end", func() bool { _, ended := exited(); return ended })
	if code, _ := exited(); code != 3 {
		t.Errorf("the pickup desk on a fresh desk, without a window, ended with exit %d, want 3", code)
	}
	t.Logf("the pickup desk's shortcut on a fresh desk: logged, dialog shown and answered, ended %v after its start", time.Since(started).Round(100*time.Millisecond))

	// The station's own entry, "qrdesk", started the same way: it fails
	// as loudly (this build has no window), in the log and in a dialog.
	station, err := os.ReadFile(filepath.Join(menu, "qrdesk.lnk"))
	if err != nil {
		t.Fatalf("Start-menu entry: %v", err)
	}
	before := len(logged)
	program, args = shortcutCommand(t, station)
	if len(args) != 0 {
		t.Errorf("the station's shortcut starts %s with %q, want no arguments (the window)", program, args)
	}
	exited = h.launch(t, []string{"LC_ALL=en_US.UTF-8"}, program, args...)
	poll(t, time.Minute, "the station window's start-up failure in qrdesk.log", func() bool {
		b, _ := os.ReadFile(logPath)
		logged = string(b)
		return len(logged) > before && strings.Contains(logged[before:], "the window could not start")
	})
	if s != nil {
		s.dialog("qrdesk could not start")
	}
	poll(t, time.Minute, "the station window to end", func() bool { _, ended := exited(); return ended })
	if code, _ := exited(); code != 3 {
		t.Errorf("the station's shortcut on a fresh desk, without a window, ended with exit %d, want 3", code)
	}

	// The installed program, as a clerk runs it from a command prompt:
	// a batch of two sheets, printed on the Windows printer.
	installed := `C:\Program Files\qrdesk\qrdesk.exe`
	h.mustWine(t, installed, "init")
	var issued issueOut
	h.decode(t, h.mustWine(t, installed, "issue", "--count", "24", "--json"), &issued)
	if len(issued.Codes) != 24 {
		t.Fatalf("issue: %d codes, want 24", len(issued.Codes))
	}
	h.spoolSheet(t, installed, c, issued, "L7160")
	h.mustWine(t, installed, "redeem", issued.Codes[0])
	exit, out, errOut := h.wine(t, installed, "redeem", issued.Codes[0])
	if exit != 1 || !strings.Contains(strings.ToLower(out+errOut), "already used") {
		t.Fatalf("second redeem: exit %d, want 1 (refused), saying already used:\n%s%s", exit, out, errOut)
	}

	// The newer MSI replaces the older (one product, the new version) and
	// the data stays: the redeemed label is still used.
	h.mustWine(t, "msiexec", "/i", winPath(newer), "/qn")
	_, reg, _ := h.wine(t, "reg", "query", `HKLM\Software\Microsoft\Windows\CurrentVersion\Uninstall`, "/s")
	if n := strings.Count(reg, "qrdesk"); !strings.Contains(reg, "0.1.1") || strings.Contains(reg, "0.1.0") || n == 0 {
		t.Errorf("after the upgrade the installed products are:\n%s", reg)
	}
	if out := h.mustWine(t, "cmd", "/c", "echo %PATH%"); strings.Count(strings.ToLower(out), `\qrdesk\`) != 1 {
		t.Errorf("PATH after the upgrade holds qrdesk's folder %d times, want once: %s", strings.Count(strings.ToLower(out), `\qrdesk\`), out)
	}
	for _, line := range strings.Split(reg, "\n") {
		if strings.Contains(line, "DisplayVersion") || strings.Contains(line, "DisplayName") {
			t.Logf("installed after the upgrade: %s", strings.TrimSpace(line))
		}
	}
	if exit, out, errOut := h.wine(t, installed, "redeem", issued.Codes[0]); exit != 1 {
		t.Fatalf("after the upgrade, a label redeemed before: exit %d, want 1 (already used)\n%s%s", exit, out, errOut)
	}
	h.mustWine(t, installed, "redeem", issued.Codes[1])

	// Uninstalling removes the program, not the clerk's data.
	h.mustWine(t, "msiexec", "/x", winPath(newer), "/qn")
	if _, err := os.Stat(filepath.Join(progDir, "qrdesk.exe")); err == nil {
		t.Error("qrdesk.exe is still in Program Files after the uninstall")
	}
	for _, f := range []string{"qrdesk.db", "qrdesk.key"} {
		if _, err := os.Stat(filepath.Join(h.machineData(), f)); err != nil {
			t.Errorf("after the uninstall: %v", err)
		}
	}
	if out := h.mustWine(t, "cmd", "/c", "echo %PATH%"); strings.Contains(strings.ToLower(out), `\qrdesk`) {
		t.Errorf("PATH after the uninstall still names qrdesk: %s", out)
	}
}

// shortcutCommand reads the program a shortcut (.lnk) starts, from its
// link information (the target's local path, in the ANSI code page), and
// its arguments (UTF-16; none for the station's own entry).
func shortcutCommand(t *testing.T, lnk []byte) (string, []string) {
	t.Helper()
	target := regexp.MustCompile(`[A-Z]:\\[ -~]*?\.exe`).Find(lnk)
	var args []string
	for _, line := range strings.Split(utf16le(lnk), "\n") {
		if strings.HasPrefix(line, "gui") {
			args = strings.Fields(line)
		}
	}
	if target == nil {
		t.Fatalf("the shortcut's target: none found (arguments %q)", args)
	}
	return string(target), args
}

// utf16le reads the UTF-16 strings in a shortcut as text (ASCII only), at
// even and odd offsets.
func utf16le(b []byte) string {
	var s strings.Builder
	for i := 0; i+1 < len(b); i += 2 {
		if b[i+1] == 0 && b[i] >= 0x20 && b[i] < 0x7f {
			s.WriteByte(b[i])
		} else {
			s.WriteByte('\n')
		}
	}
	for i := 1; i+1 < len(b); i += 2 {
		if b[i+1] == 0 && b[i] >= 0x20 && b[i] < 0x7f {
			s.WriteByte(b[i])
		} else {
			s.WriteByte('\n')
		}
	}
	return s.String()
}
