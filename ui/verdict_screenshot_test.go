package ui

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
)

// TestVerdictScreenshots draws every verdict of the Scan screen as a
// 1024 × 600 screen shows it under the menu bar, in English and Chinese,
// into $QRDESK_SCREENSHOTS/verdict-NAME[-zh].png ('make screenshots').
// TestVerdictTextsFitThePanel checks the same lines fit.
func TestVerdictScreenshots(t *testing.T) {
	dir := os.Getenv("QRDESK_SCREENSHOTS")
	if dir == "" {
		t.Skip("set QRDESK_SCREENSHOTS to a folder to take the screenshots")
	}
	// Chinese in a child process, as Fyne reads the locale once: the whole
	// window speaks it (tabs, the scan field's hint).
	suffix := os.Getenv("QRDESK_SCREENSHOT_SUFFIX")
	if suffix == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestVerdictScreenshots$")
		cmd.Env = append(os.Environ(), "QRDESK_SCREENSHOT_SUFFIX=-zh", "LANG=zh_CN.UTF-8", "LC_ALL=zh_CN.UTF-8")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("the Chinese screenshots: %v\n%s", err, out)
		}
		suffix = "."
	}
	loadTranslations()
	h := newHarness(t)
	fyne.CurrentApp().Settings().SetTheme(newTheme())
	code := h.issue(t, 1)[0]
	fyne.DoAndWait(func() { h.win.Resize(fyne.NewSize(1024, 600-menuBarHeight)) })
	for _, v := range everyVerdict(code) {
		fyne.DoAndWait(func() { v.show(h.ui.scan) })
		name := strings.NewReplacer(" ", "-", "(", "", ")", "").Replace(strings.ToLower(v.name))
		capture(t, h, filepath.Join(dir, "verdict-"+name+strings.TrimPrefix(suffix, ".")+".png"))
	}
}
