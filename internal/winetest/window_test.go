//go:build linux

package winetest

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// guiExe cross-builds the real window, qrdesk.exe with Fyne's OpenGL
// driver (cgo for mingw-w64): about 2 minutes with an empty Go cache,
// seconds warm. scripts/windows-build.sh builds it as make windows does, so
// the two share the cache.
func (h *harness) guiExe(t *testing.T) string {
	t.Helper()
	exe := filepath.Join(t.TempDir(), "qrdesk.exe")
	build := exec.Command("bash", "scripts/windows-build.sh", "-o", exe, ".")
	build.Dir = h.root
	t0 := time.Now()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("cross-building the window (cgo, mingw-w64): %v\n%s", err, out)
	}
	t.Logf("qrdesk.exe (the window) built in %v", time.Since(t0).Round(100*time.Millisecond))
	return exe
}

// xvfb starts a virtual X display and returns its name.
func xvfb(t *testing.T) string {
	t.Helper()
	for n := 140 + os.Getpid()%50; ; n++ {
		sock := fmt.Sprintf("/tmp/.X11-unix/X%d", n)
		if _, err := os.Stat(sock); err == nil {
			continue
		}
		if _, err := os.Stat(fmt.Sprintf("/tmp/.X%d-lock", n)); err == nil {
			continue
		}
		display := fmt.Sprintf(":%d", n)
		x := exec.Command("Xvfb", display, "-screen", "0", "1280x1024x24", "-nolisten", "tcp")
		if err := x.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { x.Process.Kill(); x.Wait() })
		poll(t, 10*time.Second, "Xvfb "+display, func() bool {
			_, err := os.Stat(sock)
			return err == nil
		})
		return display
	}
}

// poll calls cond every 100 ms until it holds, failing after limit.
func poll(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(limit); ; time.Sleep(100 * time.Millisecond) {
		if cond() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", limit, what)
		}
	}
}

// screen is the X display the window is on, driven by xdotool as a
// keyboard-wedge scanner types.
type screen struct {
	t       *testing.T
	display string
}

func (s *screen) xdotool(ctx context.Context, args ...string) string {
	s.t.Helper()
	c := exec.CommandContext(ctx, "xdotool", args...)
	c.Env = append(os.Environ(), "DISPLAY="+s.display)
	out, err := c.CombinedOutput()
	if err != nil {
		s.t.Fatalf("xdotool %s: %v %s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// scan types text at scanner speed (5 ms a key) and Enter.
func (s *screen) scan(text string) {
	s.t.Helper()
	s.xdotool(context.Background(), "type", "--delay", "5", text)
	s.xdotool(context.Background(), "key", "Return")
}

// grab is the whole screen.
func (s *screen) grab() image.Image {
	s.t.Helper()
	c := exec.Command("import", "-window", "root", "png:-")
	c.Env = append(os.Environ(), "DISPLAY="+s.display)
	out, err := c.Output()
	if err != nil {
		s.t.Fatalf("import (screenshot): %v", err)
	}
	img, err := png.Decode(bytes.NewReader(out))
	if err != nil {
		s.t.Fatal(err)
	}
	return img
}

// settled grabs the screen until r looks the same twice in a row and
// differs from the region in unlike (nil: anything): the window has drawn
// what the last keys asked for.
func (s *screen) settled(what string, r image.Rectangle, unlike image.Image) image.Image {
	s.t.Helper()
	var last, img image.Image
	poll(s.t, 30*time.Second, what, func() bool {
		img = s.grab()
		ok := last != nil && sameRegion(img, last, r) && (unlike == nil || !sameRegion(img, unlike, r))
		last = img
		return ok
	})
	return img
}

func sameRegion(a, b image.Image, r image.Rectangle) bool {
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if a.At(x, y) != b.At(x, y) {
				return false
			}
		}
	}
	return true
}

// save writes the part r of img as PNG, into $QRDESK_SCREENSHOTS if set.
func (s *screen) save(img image.Image, r image.Rectangle, name string) {
	img = img.(interface {
		SubImage(image.Rectangle) image.Image
	}).SubImage(r)
	dir := os.Getenv("QRDESK_SCREENSHOTS")
	if dir == "" {
		dir = s.t.TempDir()
	}
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		s.t.Fatal(err)
	}
	defer f.Close()
	png.Encode(f, img)
}

// windowHarness is the harness with the real window's qrdesk.exe and a
// virtual display for it (skipped without the display tools).
func windowHarness(t *testing.T) (*harness, *screen) {
	t.Helper()
	h := newHarness(t)
	if tool := displayTools(); tool != "" {
		t.Skipf("the window under wine needs Xvfb, xdotool and ImageMagick's import; %s is missing (make deps installs them)", tool)
	}
	h.exe = h.guiExe(t)
	s := &screen{t: t, display: xvfb(t)}
	// Every wine process of the test sees the display: wine's desktop
	// process (explorer.exe), started with the prefix's first program,
	// owns the windows of all, and one started without a display makes
	// the window fail ("Failed to create helper window"). So the wine of
	// the tests before, which had none, is waited out first.
	waitWine := exec.Command("/usr/lib/wine/wineserver", "-w")
	waitWine.Env = append(os.Environ(), "WINEPREFIX="+h.prefix)
	waitWine.Run()
	return h, s
}

// TestWindowScanUnderWine: the real window, qrdesk.exe cross-built with
// cgo, under wine on a virtual X display (Xvfb, software OpenGL). With a
// key file others can read it shows why it cannot start in a dialog
// (and qrdesk.log) and waits for it to be answered. A label
// typed by xdotool into the Scan screen, as a USB scanner types, is
// redeemed; a label typed on the Codes screen is looked up (its details
// are shown) and stays unused.
func TestWindowScanUnderWine(t *testing.T) {
	h, s := windowHarness(t)
	h, data := h.desk(t, "qrdesk-window", "DISPLAY="+s.display, "LIBGL_ALWAYS_SOFTWARE=1")
	h.must(t, "init")
	h.must(t, "settings", "--prefix", "WH", "--station-name", "Desk 1", "--configured=true", "--default-operator", "li", "--sound=false")
	var issued issueOut
	h.mustJSON(t, &issued, "issue", "--count", "3", "--ref", "Zoë 张", "--json")

	// A key file other users can read (wine: the others' mode bits are
	// Everyone) stops the window before it is up: the refusal, with the
	// fix, goes to qrdesk.log and into a dialog the program waits on.
	if err := os.Chmod(filepath.Join(data, "qrdesk.key"), 0o644); err != nil {
		t.Fatal(err)
	}
	refusedAt := time.Now()
	refused := h.launch(t, []string{"LC_ALL=en_US.UTF-8"}, h.exe, "gui", "--screen", "scan")
	var logged string
	poll(t, 2*time.Minute, "the window's start-up failure in qrdesk.log", func() bool {
		b, _ := os.ReadFile(filepath.Join(data, "qrdesk.log"))
		logged = string(b)
		return strings.Contains(logged, "the window could not start")
	})
	if !strings.Contains(logged, "can be read by other users") || !strings.Contains(logged, "qrdesk key protect") {
		t.Fatalf("qrdesk.log says:\n%s", logged)
	}
	if code, ended := refused(); ended {
		t.Fatalf("the window ended (exit %d) without waiting for its dialog to be answered", code)
	}
	s.dialog("qrdesk could not start")
	poll(t, time.Minute, "the refused window to end", func() bool { _, ended := refused(); return ended })
	if code, _ := refused(); code != 3 {
		t.Fatalf("the window refused its key file with exit %d, want 3", code)
	}
	t.Logf("a key file others can read: logged, dialog shown and answered, ended %v after the start", time.Since(refusedAt).Round(100*time.Millisecond))
	h.must(t, "key", "protect")

	gui := exec.Command(filepath.Join(h.root, "scripts", "wine-exec.sh"), h.exe, "gui", "--screen", "scan")
	gui.Env = append(append(os.Environ(), "QRDESK_WINEPREFIX="+h.prefix), h.extraEnv...)
	logFile := filepath.Join(t.TempDir(), "window.log")
	lf, err := os.Create(logFile)
	if err != nil {
		t.Fatal(err)
	}
	gui.Stdout, gui.Stderr = lf, lf
	// Its own process group: wine-exec.sh, wine and qrdesk.exe end together.
	gui.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	start := time.Now()
	if err := gui.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-gui.Process.Pid, syscall.SIGKILL)
		gui.Wait()
		lf.Close()
		if t.Failed() {
			out, _ := os.ReadFile(logFile)
			t.Logf("the window's output:\n%s", out)
		}
	})

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	win := s.xdotool(ctx, "search", "--sync", "--onlyvisible", "--name", "^qrdesk$")
	if i := strings.IndexByte(win, '\n'); i >= 0 {
		win = win[:i]
	}
	t.Logf("window %s visible after %v", win, time.Since(start).Round(100*time.Millisecond))
	geo := map[string]int{}
	for _, line := range strings.Split(s.xdotool(ctx, "getwindowgeometry", "--shell", win), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			geo[k], _ = strconv.Atoi(v)
		}
	}
	x, y, w, ht := geo["X"], geo["Y"], geo["WIDTH"], geo["HEIGHT"]
	if w < 400 || ht < 300 {
		t.Fatalf("window geometry %v", geo)
	}

	scans := func() int {
		var st struct {
			Scans    int `json:"scans"`
			Redeemed int `json:"redeemed"`
		}
		h.mustJSON(t, &st, "stats", "--json", "--date", start.Format("2006-01-02"))
		return st.Scans
	}
	// The first frame and the keyboard focus come a moment after the window
	// is mapped: type a probe (a refused scan) until one is logged, so no
	// real scan is lost.
	probes := 0
	poll(t, 60*time.Second, "the Scan screen to take a scan", func() bool {
		s.scan("PROBE")
		probes++
		for i := 0; i < 10; i++ {
			if scans() > 0 {
				return true
			}
			time.Sleep(100 * time.Millisecond)
		}
		return false
	})
	t.Logf("the Scan screen took its first scan %v after the start (%d probe(s))", time.Since(start).Round(100*time.Millisecond), probes)
	before := scans()

	status := func(code string) string {
		var v struct{ Status string }
		_, out, _ := h.run(t, "check", "--json", code) // exit 1 once used
		h.decode(t, out, &v)
		return v.Status
	}
	typed := time.Now()
	s.scan(issued.Codes[0])
	poll(t, 30*time.Second, "the label typed on Scan to be redeemed", func() bool { return status(issued.Codes[0]) == "used" })
	t.Logf("typed on Scan and redeemed in %v", time.Since(typed).Round(10*time.Millisecond))
	whole := image.Rect(x, y, x+w, y+ht)
	scanned := s.settled("the redeemed scan on the screen", whole, nil)
	s.save(scanned, whole, "windows-wine-scan.png")

	// Codes (Ctrl+3): the label is looked up. The details pane, on the
	// right, changes from "pick a code" to the label's details.
	details := image.Rect(x+w*3/4, y+ht/4, x+w-8, y+ht-8)
	s.xdotool(ctx, "key", "ctrl+3")
	codes := s.settled("the Codes screen", whole, scanned)
	s.scan(issued.Codes[1])
	s.save(s.settled("the looked-up label's details", details, codes), whole, "windows-wine-codes.png")

	// Back on Scan (Ctrl+1), another label: once it is redeemed, every key
	// typed before it has been handled.
	s.xdotool(ctx, "key", "ctrl+1")
	s.scan(issued.Codes[2])
	poll(t, 30*time.Second, "the second label typed on Scan to be redeemed", func() bool { return status(issued.Codes[2]) == "used" })
	if st := status(issued.Codes[1]); st != "unused" {
		t.Fatalf("the label typed on Codes to look it up is %s, want unused", st)
	}
	if n := scans(); n != before+2 {
		t.Fatalf("%d scans logged, want %d: typing on Codes must not scan", n, before+2)
	}
	out, _ := os.ReadFile(logFile)
	if bytes.Contains(out, []byte("panic")) {
		t.Fatalf("the window panicked:\n%s", out)
	}
}

// launch starts program (a Windows path or a Linux one) with args under
// wine, as Explorer starts a shortcut's target: nothing reads its output.
// It runs in its own process group (wine-exec.sh, wine and the program end
// together at the test's end); exited reports its exit code once it has
// ended, and whether it has.
func (h *harness) launch(t *testing.T, env []string, program string, args ...string) (exited func() (int, bool)) {
	t.Helper()
	cmd := exec.Command(filepath.Join(h.root, "scripts", "wine-exec.sh"), append([]string{program}, args...)...)
	cmd.Env = append(append(append(os.Environ(), "QRDESK_WINEPREFIX="+h.prefix), h.extraEnv...), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan int, 1)
	go func() {
		cmd.Wait()
		done <- cmd.ProcessState.ExitCode()
	}()
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	var code int
	var ended bool
	return func() (int, bool) {
		if !ended {
			select {
			case code = <-done:
				ended = true
			default:
			}
		}
		return code, ended
	}
}

// dialog waits (a minute at most) for a window titled exactly title, as
// a MessageBox is, and answers it with Enter.
func (s *screen) dialog(title string) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	win := s.xdotool(ctx, "search", "--sync", "--onlyvisible", "--name", "^"+title+"$")
	if i := strings.IndexByte(win, '\n'); i >= 0 {
		win = win[:i]
	}
	s.xdotool(ctx, "windowfocus", "--sync", win)
	s.xdotool(ctx, "key", "Return")
}

// displayTools says which of Xvfb, xdotool and ImageMagick's import is
// missing, "" when none is.
func displayTools() string {
	for _, tool := range []string{"Xvfb", "xdotool", "import"} {
		if _, err := exec.LookPath(tool); err != nil {
			return tool
		}
	}
	return ""
}

// TestFirstSupervisorUnderWine: the pickup desk ('gui --desk --screen
// scan', the Start menu's "qrdesk pickup desk") of the real window under
// wine, on a fresh desk nobody set up: it opens and asks for the first
// supervisor. Typed in from the keyboard (name, PIN, the PIN again, each
// ended by Enter), the supervisor is on the desk's operators, and Space
// on "Save their badge" writes their badge to Documents\qrdesk. Before,
// this shortcut refused to start and sent the clerk to a command prompt.
func TestFirstSupervisorUnderWine(t *testing.T) {
	h, s := windowHarness(t)
	h, data := h.desk(t, "qrdesk-pickup", "DISPLAY="+s.display, "LIBGL_ALWAYS_SOFTWARE=1")
	started := time.Now()
	// C.UTF-8, a locale every machine has: wine turns the desk's folder
	// (C:\users\Zoë Lämmer\…) into a Linux path with the locale's
	// charset, and one the machine lacks made it "ZoC+ LC$mmer".
	exited := h.launch(t, []string{"LC_ALL=C.UTF-8"}, h.exe, "gui", "--desk", "--screen", "scan")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	win := s.xdotool(ctx, "search", "--sync", "--onlyvisible", "--name", "^qrdesk pickup desk$")
	if i := strings.IndexByte(win, '\n'); i >= 0 {
		win = win[:i]
	}
	geo := map[string]int{}
	for _, line := range strings.Split(s.xdotool(ctx, "getwindowgeometry", "--shell", win), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			geo[k], _ = strconv.Atoi(v)
		}
	}
	whole := image.Rect(geo["X"], geo["Y"], geo["X"]+geo["WIDTH"], geo["Y"]+geo["HEIGHT"])
	// The form is in the window's first frame, its name field focused.
	s.save(s.settled("the first supervisor's form", whole, nil), whole, "windows-wine-first-supervisor.png")
	t.Logf("the pickup desk's window with the first supervisor's form %v after its start", time.Since(started).Round(100*time.Millisecond))
	s.xdotool(ctx, "windowfocus", "--sync", win)
	for _, text := range []string{"Wang Fang", "1357", "1357"} {
		s.scan(text) // each ended by Enter: to the next field, then Add
	}
	var ops []struct {
		Name       string
		Supervisor bool
	}
	var said string
	for deadline := time.Now().Add(time.Minute); len(ops) != 1; time.Sleep(time.Second) {
		if time.Now().After(deadline) {
			s.save(s.grab(), whole, "windows-wine-first-supervisor-failed.png")
			var keys []string
			filepath.WalkDir(h.prefix, func(path string, d fs.DirEntry, err error) error {
				if err == nil && d.Name() == "qrdesk.key" {
					keys = append(keys, path)
				}
				return nil
			})
			t.Fatalf("the first supervisor is not on the desk's operators after a minute: %s\n(%s; key files in the prefix: %q)", said, data, keys)
		}
		code, out, errOut := h.run(t, "operators", "list", "--json")
		if said = out + errOut; code == 0 && strings.TrimSpace(out) != "" {
			ops = nil
			h.decode(t, out, &ops)
		}
	}
	if ops[0].Name != "Wang Fang" || !ops[0].Supervisor {
		t.Fatalf("the desk's operators: %+v (%s)", ops, said)
	}
	if code, ended := exited(); ended {
		t.Fatalf("the pickup desk ended (exit %d)", code)
	}
	s.save(s.settled("the badge offered", whole, nil), whole, "windows-wine-first-supervisor-added.png")
	s.xdotool(ctx, "key", "space") // Save their badge (it has the keyboard)
	badge := filepath.Join(h.home(), "Documents", "qrdesk", "qrdesk-badge-Wang-Fang.pdf")
	poll(t, 30*time.Second, "the badge's PDF in Documents\\qrdesk", func() bool {
		info, err := os.Stat(badge)
		return err == nil && info.Size() > 0
	})
}
