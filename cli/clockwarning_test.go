package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"qrdesk/app"
)

// TestSyncWarnsOfTheClock: 'qrdesk sync' against a real qrdesk-server
// process says when this desk's clock is off the server's, in English or
// Chinese as the locale asks, and --json carries the measurement.
func TestSyncWarnsOfTheClock(t *testing.T) {
	cs := buildServer(t)
	token := cs.addStation(t, "Desk 1", "A")
	cs.start(t)
	s := newStation(t)
	s.run(t, "settings", "--station-name", "Desk 1")
	os.WriteFile(filepath.Join(s.dir, "sync.json"), []byte(fmt.Sprintf(`{"server":"http://%s","token":%q}`, cs.addr, token)), 0o600)

	s.now = func() time.Time { return testNow().Add(49 * time.Hour) }
	code, out, errOut := s.run(t, "sync")
	if want := "warning: this desk's clock is 2 days ahead of the server: fix the clock\n"; code != ExitOK || !strings.HasSuffix(out, want) {
		t.Fatalf("sync: exit %d %q %s, want it to end with %q", code, out, errOut, want)
	}
	s.vars = map[string]string{"LANG": "zh_CN.UTF-8"}
	s.now = func() time.Time { return testNow().Add(-5*time.Hour - 20*time.Minute) }
	if _, out, _ := s.run(t, "sync"); !strings.Contains(out, "警告：本柜台的时钟比服务器慢 5 小时：请校正时钟") {
		t.Fatalf("sync in Chinese: %q", out)
	}
	var st app.SyncStatus
	code, out, _ = s.run(t, "sync", "--json")
	if err := json.Unmarshal([]byte(out), &st); err != nil || code != ExitOK {
		t.Fatalf("sync --json: exit %d %q %v", code, out, err)
	}
	if off := time.Duration(st.Clock.OffsetMS) * time.Millisecond; off < 5*time.Hour+19*time.Minute || off > 5*time.Hour+21*time.Minute {
		t.Fatalf("--json clock %+v, want the server 5 h 20 min ahead", st.Clock)
	}
	s.now = testNow
	if _, out, _ := s.run(t, "sync"); strings.Contains(out, "clock") || strings.Contains(out, "时钟") {
		t.Fatalf("sync with the clock right warns: %q", out)
	}
}
