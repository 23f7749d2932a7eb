package testclock

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestDayFromEnvironment(t *testing.T) {
	t.Setenv(DateEnv, "2028-02-29")
	if got := Day(); got.Format("2006-01-02 15:04") != "2028-02-29 00:00" || got.Location() != time.Local {
		t.Fatalf("Day() = %v, want local midnight of 2028-02-29", got)
	}
	if got := Base(); got.Hour() != BaseHour || got.Day() != 29 {
		t.Fatalf("Base() = %v", got)
	}
	if got := Date(1); got != "2028-03-01" {
		t.Fatalf("Date(1) = %s, want 2028-03-01", got)
	}
	t.Setenv(DateEnv, "2027-02-29")
	defer func() {
		if recover() == nil {
			t.Fatal("a day that does not exist was accepted")
		}
	}()
	Day()
}

func TestChildContinuesTheClock(t *testing.T) {
	parent := Running(time.Date(2027, 3, 28, 10, 0, 0, 0, time.Local))
	t.Setenv(NowEnv, strings.TrimPrefix(Env(parent()), NowEnv+"="))
	child, err := FromEnv()
	if err != nil || child == nil {
		t.Fatalf("FromEnv: %v", err)
	}
	if d := child().Sub(parent()); d > time.Second || d < -time.Second {
		t.Fatalf("the child's clock is %v off the parent's", d)
	}
	if child().Location() != time.Local {
		t.Fatal("the child's clock is not in the local time zone")
	}
	t.Setenv(NowEnv, "yesterday")
	if _, err := FromEnv(); err == nil {
		t.Fatal("a malformed clock was accepted")
	}
}

// TestReleaseBinariesHaveNoTestClock: neither binary a user runs links this
// package, so neither can be made to pretend another day.
func TestReleaseBinariesHaveNoTestClock(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	cmd := exec.Command("go", "list", "-deps", "qrdesk", "qrdesk/cmd/qrdesk-server")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "qrdesk/internal/testclock") {
		t.Fatal("a release binary imports internal/testclock")
	}
}
