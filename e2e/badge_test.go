package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// printedBadges prints the badge sheet with the real binary and reads the
// badges back from the PDF, as a scanner would read the printed sheet.
func (s *station) printedBadges() []string {
	s.t.Helper()
	for _, tool := range []string{"pdftoppm", "zbarimg"} {
		if _, err := exec.LookPath(tool); err != nil {
			s.t.Fatalf("%s is not installed: run 'make deps'", tool)
		}
	}
	dir := s.t.TempDir()
	pdf := filepath.Join(dir, "badges.pdf")
	if out, err := s.cmd("print", "--badges", "-o", pdf).CombinedOutput(); err != nil {
		s.t.Fatalf("print --badges: %v %s", err, out)
	}
	if out, err := exec.Command("pdftoppm", "-r", "300", "-png", pdf, filepath.Join(dir, "page")).CombinedOutput(); err != nil {
		s.t.Fatalf("pdftoppm: %v %s", err, out)
	}
	pages, _ := filepath.Glob(filepath.Join(dir, "page*.png"))
	out, _ := exec.Command("zbarimg", append([]string{"-q", "--raw"}, pages...)...).Output()
	badges := strings.Fields(string(out))
	sort.Strings(badges) // operator ids in the order they were added
	return badges
}

// signIns counts the audited sign-ins of name (the window writes them).
func (s *station) signIns(name string) int {
	s.t.Helper()
	out, err := exec.Command("sqlite3", filepath.Join(s.home, "qrdesk.db"),
		"SELECT count(*) FROM audit WHERE action = 'sign_in' AND subject = '"+name+"'").Output()
	if err != nil {
		s.t.Fatalf("sqlite3: %v", err)
	}
	n := 0
	for _, ch := range strings.TrimSpace(string(out)) {
		n = n*10 + int(ch-'0')
	}
	return n
}

// scan types text at scanner speed and ends it with Enter.
func (s *station) scan(text string) {
	s.xdotool("type", "--delay", "5", text)
	s.xdotool("key", "Return")
}

func (s *station) usedBy(code string) string {
	s.t.Helper()
	var recs []struct {
		Status       string
		UsedOperator string `json:"used_operator"`
	}
	s.json(&recs, "search", code)
	if len(recs) != 1 || recs[0].Status != "used" {
		return ""
	}
	return recs[0].UsedOperator
}

// TestBadgeSignInAtTheDesk runs the real window in desk mode under Xvfb: a
// picker signs in by scanning the printed badge, scans a label (recorded
// under their name), cannot leave the Scan screen; the supervisor unlocks the
// other screens with Ctrl+L and a PIN. Then the same desk in Chinese, where
// the supervisor's badge is scanned into the sign-in form.
func TestBadgeSignInAtTheDesk(t *testing.T) {
	if _, err := exec.LookPath("sqlite3"); err != nil {
		t.Fatal("sqlite3 is not installed: run 'make deps'")
	}
	s := &station{t: t, bin: buildBinary(t), home: t.TempDir(), display: startXvfb(t)}
	s.json(&map[string]any{}, "init")
	s.json(&map[string]any{}, "settings", "--prefix", "WH", "--station-name", "Desk 1", "--configured=true", "--sound=false")
	for _, op := range []struct{ name, pin, role string }{{"li", "4321", ""}, {"wang", "8765", "--supervisor"}} {
		add := s.cmd("operators", "add", op.name)
		if op.role != "" {
			add.Args = append(add.Args, op.role)
		}
		add.Stdin = strings.NewReader(op.pin + "\n")
		if out, err := add.CombinedOutput(); err != nil {
			t.Fatalf("operators add %s: %v %s", op.name, err, out)
		}
	}
	badges := s.printedBadges()
	if len(badges) != 2 {
		t.Fatalf("read %q from the badge sheet, want 2 badges", badges)
	}
	liBadge, wangBadge := badges[0], badges[1]
	var issued struct{ Codes []string }
	s.json(&issued, "issue", "--count", "4", "--operator", "wang") // a desk with operators records only their names

	for _, lang := range []string{"en_US.UTF-8", "zh_CN.UTF-8"} {
		gui := s.cmd("gui", "--desk")
		gui.Env = append(gui.Env, "LANG="+lang, "LC_ALL="+lang)
		var guiOut syncBuffer
		gui.Stdout, gui.Stderr = &guiOut, &guiOut
		if err := gui.Start(); err != nil {
			t.Fatal(err)
		}
		s.waitForWindow(&guiOut)
		// The first frame and the focus come a little later under load:
		// scan the badge until the sign-in is recorded.
		time.Sleep(500 * time.Millisecond)
		before := s.signIns("li")
		for attempt := 0; s.signIns("li") == before; attempt++ {
			if attempt == 20 {
				t.Fatalf("the window never took the badge:\n%s", guiOut.String())
			}
			s.scan(strings.ToLower(liBadge)) // a scanner with Caps Lock on still signs in
			for i := 0; i < 20 && s.signIns("li") == before; i++ {
				time.Sleep(100 * time.Millisecond)
			}
		}
		if lang == "en_US.UTF-8" {
			// Locked: Ctrl+3 does not leave the Scan screen, so a label typed
			// next is still redeemed, under li's name.
			s.xdotool("key", "ctrl+3")
			time.Sleep(300 * time.Millisecond)
			s.scan(issued.Codes[0])
			waitFor(t, "the label redeemed by li", func() bool { return s.usedBy(issued.Codes[0]) == "li" })
			time.Sleep(300 * time.Millisecond)
			s.screenshot("desk")

			// The supervisor unlocks from the keyboard: Ctrl+L, name, PIN.
			// Now Ctrl+3 opens Codes, and a label typed there is not redeemed.
			s.xdotool("key", "ctrl+l")
			time.Sleep(500 * time.Millisecond)
			s.screenshot("signin")
			s.scan("wang")
			s.scan("8765")
			waitFor(t, "wang's sign-in", func() bool { return s.signIns("wang") == 1 })
			s.xdotool("key", "ctrl+3")
			time.Sleep(500 * time.Millisecond)
			s.screenshot("desk-unlocked")
			s.scan(issued.Codes[1])
			time.Sleep(time.Second)
			var v struct{ Status string }
			s.json(&v, "check", issued.Codes[1])
			if v.Status != "unused" {
				t.Fatalf("a label typed on the Codes screen of an unlocked desk is %s", v.Status)
			}
		} else {
			s.scan(issued.Codes[2])
			waitFor(t, "the label redeemed by li", func() bool { return s.usedBy(issued.Codes[2]) == "li" })
			time.Sleep(300 * time.Millisecond)
			s.screenshot("desk-zh")
			// The supervisor's badge, typed into the sign-in form's first field.
			s.xdotool("key", "ctrl+l")
			time.Sleep(500 * time.Millisecond)
			s.screenshot("signin-zh")
			s.scan(wangBadge)
			waitFor(t, "wang's sign-in", func() bool { return s.signIns("wang") == 2 })
		}
		if strings.Contains(guiOut.String(), "panic") {
			t.Fatalf("the window panicked:\n%s", guiOut.String())
		}
		gui.Process.Signal(os.Interrupt)
		gui.Wait()
	}
}
