// Package e2e drives the real qrdesk binary in a real window under Xvfb,
// typed by xdotool the way a keyboard-wedge scanner types.
package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

type station struct {
	t       *testing.T
	bin     string
	home    string
	display string
	lang    string // LANG of the window; "" for en_US.UTF-8
}

func (s *station) cmd(args ...string) *exec.Cmd {
	c := exec.Command(s.bin, args...)
	lang := s.lang
	if lang == "" {
		lang = "en_US.UTF-8"
	}
	c.Env = append(os.Environ(), "QRDESK_HOME="+s.home, "DISPLAY="+s.display, "LANG="+lang, "LC_ALL="+lang)
	return c
}

func (s *station) json(v any, args ...string) {
	s.t.Helper()
	out, err := s.cmd(append(args, "--json")...).Output()
	if err != nil && len(out) == 0 {
		s.t.Fatalf("qrdesk %v: %v", args, err)
	}
	if err := json.Unmarshal(out, v); err != nil {
		s.t.Fatalf("qrdesk %v: %v\n%s", args, err, out)
	}
}

func (s *station) xdotool(args ...string) string {
	s.t.Helper()
	c := exec.Command("xdotool", args...)
	c.Env = append(os.Environ(), "DISPLAY="+s.display)
	out, err := c.CombinedOutput()
	if err != nil {
		s.t.Fatalf("xdotool %v: %v %s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// waitForWindow waits for the window to be mapped, two minutes at most, and
// fails with what qrdesk printed: xdotool search --sync alone waits for ever,
// so a window that never opened hung the test to go test's timeout.
func (s *station) waitForWindow(out *syncBuffer) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, "xdotool", "search", "--sync", "--name", "^qrdesk")
	c.Env = append(os.Environ(), "DISPLAY="+s.display)
	if b, err := c.CombinedOutput(); err != nil {
		s.t.Fatalf("the window did not appear within 2 minutes (xdotool: %v %s); qrdesk printed:\n%s", err, b, out.String())
	}
}

func (s *station) screenshot(name string) {
	s.t.Helper()
	dir := os.Getenv("QRDESK_SCREENSHOTS")
	if dir == "" {
		dir = s.t.TempDir()
	}
	path := filepath.Join(dir, name+".png")
	// The window alone, at the size it opens at: the screen around it is
	// black (Xvfb has no desktop).
	find := exec.Command("xdotool", "search", "--name", "^qrdesk")
	find.Env = append(os.Environ(), "DISPLAY="+s.display)
	ids, err := find.Output()
	if err != nil || len(strings.Fields(string(ids))) == 0 {
		s.t.Fatalf("screenshot: no qrdesk window (xdotool: %v)", err)
	}
	c := exec.Command("import", "-window", strings.Fields(string(ids))[0], path)
	c.Env = append(os.Environ(), "DISPLAY="+s.display)
	if out, err := c.CombinedOutput(); err != nil {
		s.t.Fatalf("screenshot: %v %s", err, out)
	}
	if info, err := os.Stat(path); err != nil || info.Size() < 5000 {
		s.t.Fatalf("screenshot %s is missing or blank", path)
	}
}

// figures are the parts of 'qrdesk stats' the test reads.
type figures struct {
	Scans, Redeemed int
	Refused         map[string]int
}

// stats adds up the figures of every day from since's to today's: the real
// binary runs on the real clock, and a run may cross midnight.
func (s *station) stats(since time.Time) figures {
	s.t.Helper()
	sum := figures{Refused: map[string]int{}}
	y, m, d := since.Date()
	for day := time.Date(y, m, d, 0, 0, 0, 0, time.Local); !day.After(time.Now()); day = day.AddDate(0, 0, 1) {
		var f figures
		s.json(&f, "stats", "--date", day.Format("2006-01-02"))
		sum.Scans += f.Scans
		sum.Redeemed += f.Redeemed
		for k, n := range f.Refused {
			sum.Refused[k] += n
		}
	}
	return sum
}

// syncBuffer is a bytes.Buffer the window's output goroutine may write while
// the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitFor polls cond every 50 ms for up to 15 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

func startXvfb(t *testing.T) string {
	t.Helper()
	for _, tool := range []string{"Xvfb", "xdotool", "import"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed: run 'make deps'", tool)
		}
	}
	for n := 90 + os.Getpid()%50; ; n++ {
		if _, err := os.Stat(fmt.Sprintf("/tmp/.X11-unix/X%d", n)); err == nil {
			continue
		}
		display := fmt.Sprintf(":%d", n)
		x := exec.Command("Xvfb", display, "-screen", "0", "1280x1024x24", "-nolisten", "tcp")
		if err := x.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { x.Process.Kill(); x.Wait() })
		waitFor(t, "Xvfb", func() bool {
			_, err := os.Stat(fmt.Sprintf("/tmp/.X11-unix/X%d", n))
			return err == nil
		})
		return display
	}
}

func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "qrdesk")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func TestScannerAtTheDesk(t *testing.T) {
	s := &station{t: t, bin: buildBinary(t), home: t.TempDir(), display: startXvfb(t)}
	s.json(&map[string]any{}, "init")
	s.json(&map[string]any{}, "settings", "--prefix", "WH", "--station-name", "Desk 1", "--configured=true", "--default-operator", "li", "--sound=false")
	var issued struct{ Codes []string }
	s.json(&issued, "issue", "--count", "3", "--ref", "ORDER-12")

	start := time.Now()
	gui := s.cmd("gui", "--screen", "scan")
	var guiOut syncBuffer
	gui.Stdout, gui.Stderr = &guiOut, &guiOut
	if err := gui.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { gui.Process.Kill(); gui.Wait() })
	s.waitForWindow(&guiOut)
	t.Logf("cold start to a visible window: %v", time.Since(start).Round(time.Millisecond))
	// Under load the first frame and the focus come a little later: type a
	// probe (a refused scan) until one arrives, so no real scan is lost.
	var before figures
	time.Sleep(500 * time.Millisecond)
	for attempt := 0; before.Scans == 0; attempt++ {
		if attempt == 20 {
			t.Fatalf("the window never accepted typing:\n%s", guiOut.String())
		}
		s.xdotool("type", "--delay", "5", "PROBE")
		s.xdotool("key", "Return")
		for i := 0; i < 20 && before.Scans == 0; i++ {
			time.Sleep(100 * time.Millisecond)
			before = s.stats(start)
		}
	}
	t.Logf("cold start to a Scan screen that takes scans: %v", time.Since(start).Round(time.Millisecond))

	// A valid code at scanner speed (5 ms a key), then Enter.
	typed := time.Now()
	s.xdotool("type", "--delay", "5", issued.Codes[0])
	s.xdotool("key", "Return")
	waitFor(t, "the code to be used", func() bool {
		var v struct{ Status string }
		s.json(&v, "check", issued.Codes[0])
		return v.Status == "used"
	})
	t.Logf("typed and redeemed in %v", time.Since(typed).Round(time.Millisecond))
	time.Sleep(200 * time.Millisecond)
	s.screenshot("scan")

	// A forged code: one character of the signature changed.
	c := issued.Codes[1]
	last := "2"
	if strings.HasSuffix(c, "2") {
		last = "3"
	}
	forged := c[:len(c)-1] + last
	s.xdotool("type", "--delay", "5", forged)
	s.xdotool("key", "Return")
	waitFor(t, "the forged scan in the log", func() bool { return s.stats(start).Refused["bad_signature"] == 1 })
	var v struct{ Outcome, Status string }
	s.json(&v, "check", c)
	if v.Outcome != "valid" || v.Status != "unused" {
		t.Fatalf("the genuine code behind the forgery changed: %+v", v)
	}
	if st := s.stats(start); st.Scans != before.Scans+2 || st.Redeemed != 1 {
		t.Fatalf("stats %+v, want %d scans and 1 redemption", st, before.Scans+2)
	}

	// Ctrl+2 … Ctrl+5 from whatever field has the keyboard (the main
	// menu's shortcuts); on Codes a scanned label is looked up, not used.
	for i, name := range []string{"issue", "codes", "today", "settings"} {
		s.xdotool("key", fmt.Sprintf("ctrl+%d", i+2))
		time.Sleep(700 * time.Millisecond)
		if name == "issue" {
			time.Sleep(3 * time.Second) // the preview is drawn in the background
		}
		if name == "codes" {
			s.xdotool("type", "--delay", "5", issued.Codes[2])
			s.xdotool("key", "Return")
			time.Sleep(700 * time.Millisecond)
		}
		s.screenshot(name)
	}
	var looked struct{ Outcome, Status string }
	s.json(&looked, "check", issued.Codes[2])
	if looked.Status != "unused" {
		t.Fatalf("the label scanned on Codes to look it up is %s", looked.Status)
	}
	if st := s.stats(start); st.Scans != before.Scans+2 {
		t.Fatalf("typing on the other screens made scans: %+v", st)
	}
	if strings.Contains(guiOut.String(), "panic") {
		t.Fatalf("the window panicked:\n%s", guiOut.String())
	}
}

// TestScreensInChinese opens every screen under a Chinese locale, moving
// between them with Ctrl+1 … Ctrl+5, for the Chinese screenshots.
func TestScreensInChinese(t *testing.T) {
	s := &station{t: t, bin: buildBinary(t), home: t.TempDir(), display: startXvfb(t), lang: "zh_CN.UTF-8"}
	s.json(&map[string]any{}, "init")
	s.json(&map[string]any{}, "settings", "--prefix", "WH", "--station-name", "一号台", "--configured=true", "--default-operator", "李", "--sound=false")
	var issued struct{ Codes []string }
	s.json(&issued, "issue", "--count", "3", "--ref", "订单-12")
	gui := s.cmd("gui", "--screen", "scan")
	var guiOut syncBuffer
	gui.Stdout, gui.Stderr = &guiOut, &guiOut
	if err := gui.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { gui.Process.Kill(); gui.Wait() })
	s.waitForWindow(&guiOut)
	// Probe until the window takes typing (see TestScannerAtTheDesk).
	start := time.Now()
	waitFor(t, "the window to take typing", func() bool {
		s.xdotool("type", "--delay", "5", "PROBE")
		s.xdotool("key", "Return")
		time.Sleep(300 * time.Millisecond)
		return s.stats(start).Scans > 0
	})
	s.xdotool("type", "--delay", "5", issued.Codes[0])
	s.xdotool("key", "Return")
	waitFor(t, "the scan", func() bool { return s.stats(start).Redeemed == 1 })
	time.Sleep(300 * time.Millisecond)
	s.screenshot("scan-zh")
	for i, name := range []string{"issue", "codes", "today", "settings"} {
		s.xdotool("key", fmt.Sprintf("ctrl+%d", i+2))
		time.Sleep(700 * time.Millisecond)
		if name == "issue" {
			time.Sleep(3 * time.Second) // the preview is drawn in the background
		}
		if name == "codes" {
			s.xdotool("type", "--delay", "5", issued.Codes[1])
			s.xdotool("key", "Return")
			time.Sleep(700 * time.Millisecond)
		}
		s.screenshot(name + "-zh")
	}
	if strings.Contains(guiOut.String(), "panic") {
		t.Fatalf("the window panicked:\n%s", guiOut.String())
	}
}
