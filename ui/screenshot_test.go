package ui

import (
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"fyne.io/fyne/v2"
)

// TestDayScreenshots renders the close-day result and the Codes detail
// with Replace and Undo, in English and (in a child process, as Fyne reads
// the locale once) in Chinese, into $QRDESK_SCREENSHOTS ('make screenshots').
func TestDayScreenshots(t *testing.T) {
	dir, suffix := screenshotsIn(t)
	loadTranslations()
	h := newHarness(t)
	fyne.CurrentApp().Settings().SetTheme(newTheme())
	codes := h.issue(t, 6)
	for i, op := range []string{"li", "wang", "li"} {
		h.clock.Advance(time.Duration(20+i*30) * time.Minute)
		h.svc.Redeem(context.Background(), codes[i], op)
	}
	h.svc.Redeem(context.Background(), codes[0], "wang")
	h.svc.SetDisabled(context.Background(), codes[3], true, "damaged", "li")

	s := codesDetail(t, h, codes[2])
	fyne.DoAndWait(func() { s.reason.SetText("wrong parcel") })
	waitFor(t, "the history", func() bool { return s.history.Text != "" && s.history.Text != T("Never scanned") })
	capture(t, h, filepath.Join(dir, "codes-undo-replace"+suffix+".png"))

	h.clock.Advance(8 * time.Hour)
	d := newCloseDayDialog(h.ui.env, nil)
	fyne.DoAndWait(func() { h.ui.show("today") })
	h.settle()
	fyne.DoAndWait(func() { d.run() })
	h.settle()
	waitFor(t, "the close", func() bool { return d.closed != nil })
	time.Sleep(100 * time.Millisecond) // the dialog's first frame
	capture(t, h, filepath.Join(dir, "close-day"+suffix+".png"))
	// The page itself, as the window saves it.
	pdf := filepath.Join(t.TempDir(), "day.pdf")
	if err := d.savePDF(*d.closed, pdf); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("pdftoppm", "-r", "60", "-png", "-singlefile", pdf, filepath.Join(dir, "close-day-page"+suffix)).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v %s", err, out)
	}
}

// screenshotsIn is the folder of 'make screenshots' ($QRDESK_SCREENSHOTS;
// without it the test is skipped) and the suffix of this run's files: ""
// in English, once the same test has run again in Chinese in a child
// process (Fyne reads the locale once), and "-zh" in that child.
func screenshotsIn(t *testing.T) (dir, suffix string) {
	t.Helper()
	if dir = os.Getenv("QRDESK_SCREENSHOTS"); dir == "" {
		t.Skip("set QRDESK_SCREENSHOTS to a folder to take the screenshots")
	}
	if suffix = os.Getenv("QRDESK_SCREENSHOT_SUFFIX"); suffix != "" {
		return dir, suffix
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$")
	cmd.Env = append(os.Environ(), "QRDESK_SCREENSHOT_SUFFIX=-zh", "LANG=zh_CN.UTF-8", "LC_ALL=zh_CN.UTF-8")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the Chinese screenshots: %v\n%s", err, out)
	}
	return dir, ""
}

func capture(t *testing.T, h *harness, path string) {
	t.Helper()
	var img image.Image
	fyne.DoAndWait(func() {
		// Lay out again what the screens changed (wrapped labels learn their
		// height from their width only at layout).
		for i := 0; i < 2; i++ {
			h.win.Resize(h.win.Canvas().Size().SubtractWidthHeight(1, 0))
			h.win.Resize(h.win.Canvas().Size().AddWidthHeight(1, 0))
		}
	})
	fyne.DoAndWait(func() { img = h.win.Canvas().Capture() })
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
}
