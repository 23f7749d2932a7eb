package cli

import (
	"context"
	"testing"
)

// TestSettingsAtTheCommandLineSetTheDeskUp: a desk set up at the command
// line, as operator.md shows ('qrdesk settings --prefix WH --station-id A
// --station-name …'), still got the window's first-run set-up at its
// first start. Answering one of the set-up's questions at the command line
// is setting the desk up; a setting the set-up does not ask (sound) is not.
func TestSettingsAtTheCommandLineSetTheDeskUp(t *testing.T) {
	configured := func(t *testing.T, s *station) bool {
		t.Helper()
		db := s.openDB(t)
		set, err := db.LoadSettings(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		db.Close()
		return set.Configured
	}
	t.Run("SetUpQuestion", func(t *testing.T) {
		s := newStation(t)
		if configured(t, s) {
			t.Fatal("a fresh desk is set up already")
		}
		if code, _, errOut := s.run(t, "settings", "--prefix", "WH", "--station-id", "A", "--station-name", "Desk 1"); code != ExitOK {
			t.Fatalf("qrdesk settings: exit %d: %s", code, errOut)
		}
		if !configured(t, s) {
			t.Fatal("a desk set up with 'qrdesk settings --prefix …' still asks the set-up in the window")
		}
	})
	t.Run("OtherSetting", func(t *testing.T) {
		s := newStation(t)
		if code, _, errOut := s.run(t, "settings", "--sound", "false"); code != ExitOK {
			t.Fatalf("qrdesk settings: exit %d: %s", code, errOut)
		}
		if configured(t, s) {
			t.Fatal("'qrdesk settings --sound false' marked the desk set up")
		}
	})
	t.Run("RefusedValue", func(t *testing.T) {
		s := newStation(t)
		if code, _, _ := s.run(t, "settings", "--prefix", "W-1"); code != ExitUsage {
			t.Fatalf("qrdesk settings --prefix W-1: exit %d, want %d", code, ExitUsage)
		}
		if configured(t, s) {
			t.Fatal("a refused prefix marked the desk set up")
		}
	})
}
