package multidesk_test

import (
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// The releases from before protocol versions still in the field: the
// first release, and the last commit before versions (oldDeskCommit,
// built by buildOldDesk).
const (
	firstReleaseCommit   = "2264f38"
	beforeVersionsCommit = "8fd1ea8"
)

var (
	releaseDesksMu sync.Mutex
	releaseDesks   = map[string]func() (string, string){}
)

// buildReleaseDesk builds the qrdesk (with its window, as it shipped) of a
// commit of this repository's history, once per machine: kept under the
// temporary folder by commit. It builds offline (GOPROXY=off) on the
// modules today's go.mod names, which CI's module cache holds: the old
// go.mod's requirements are raised to today's versions (the first
// release's golang.org/x/text v0.41.0 is in no cache of today's), the
// code is the release's own. It skips, saying why, when git or the build
// is not available.
func buildReleaseDesk(t *testing.T, commit string) string {
	t.Helper()
	releaseDesksMu.Lock()
	build, ok := releaseDesks[commit]
	if !ok {
		build = sync.OnceValues(func() (string, string) { return buildReleaseDeskOnce(commit) })
		releaseDesks[commit] = build
	}
	releaseDesksMu.Unlock()
	bin, why := build()
	if bin == "" {
		t.Skipf("no qrdesk binary of %s: %s", commit, why)
	}
	return bin
}

func buildReleaseDeskOnce(commit string) (bin, why string) {
	dir := filepath.Join(os.TempDir(), "qrdesk-release-desk-"+commit)
	bin = filepath.Join(dir, "qrdesk")
	if _, err := os.Stat(bin); err == nil {
		return bin, ""
	}
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return "", "git rev-parse: " + err.Error()
	}
	root := strings.TrimSpace(string(top))
	// A folder of its own for the sources, and the binary renamed into
	// place whole: another test process building the same release at the
	// same time does not mix with this one.
	src, err := os.MkdirTemp("", "qrdesk-release-src-")
	if err != nil {
		return "", err.Error()
	}
	defer os.RemoveAll(src)
	archive := exec.Command("sh", "-c", `git -C "$1" archive "$2" | tar -x -C "$3"`, "sh", root, commit, src)
	if out, err := archive.CombinedOutput(); err != nil {
		return "", "git archive: " + string(out)
	}
	today, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", err.Error()
	}
	old, err := os.ReadFile(filepath.Join(src, "go.mod"))
	if err != nil {
		return "", err.Error()
	}
	goCmd := func(args ...string) error {
		c := exec.Command("go", args...)
		c.Dir = src
		c.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
		if out, err := c.CombinedOutput(); err != nil {
			return &buildError{strings.Join(args, " ") + ": " + string(out)}
		}
		return nil
	}
	for _, m := range requirements(today) {
		if requires(old, m[0]) {
			if err := goCmd("mod", "edit", "-require="+m[0]+"@"+m[1]); err != nil {
				return "", err.Error()
			}
		}
	}
	sums, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		return "", err.Error()
	}
	f, err := os.OpenFile(filepath.Join(src, "go.sum"), os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return "", err.Error()
	}
	f.Write(sums)
	f.Close()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err.Error()
	}
	tmp := filepath.Join(src, "qrdesk")
	if err := goCmd("build", "-o", tmp, "."); err != nil {
		return "", err.Error()
	}
	if err := os.Rename(tmp, bin); err != nil {
		return "", err.Error()
	}
	return bin, ""
}

type buildError struct{ msg string }

func (e *buildError) Error() string { return e.msg }

// requirements lists the module paths and versions a go.mod requires.
func requirements(gomod []byte) [][2]string {
	var out [][2]string
	for _, line := range strings.Split(string(gomod), "\n") {
		f := strings.Fields(line)
		if strings.HasPrefix(line, "\t") && len(f) >= 2 && strings.Contains(f[0], ".") {
			out = append(out, [2]string{f[0], f[1]})
		}
	}
	return out
}

func requires(gomod []byte, path string) bool {
	for _, m := range requirements(gomod) {
		if m[0] == path {
			return true
		}
	}
	return false
}

// metricLine returns the line of the server's /metrics page that starts
// with prefix ("" when there is none).
func metricLine(t *testing.T, h *centraltest.Harness, prefix string) string {
	t.Helper()
	resp, err := centraltest.HTTPClient.Get(h.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %d", resp.StatusCode)
	}
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, prefix) {
			return line
		}
	}
	return ""
}

// TestOldDesksDuringRollOut: the roll-out the docs prescribe, server
// first, then the desks. The server is upgraded; desk A is too, desk D
// still runs a release from before protocol versions (the first release,
// or the last commit before versions: real binaries built from history).
// Desk A issues labels, redeems five of them online and replaces
// another. At the old desk the clerk scans those five: each is refused as
// used at Desk A, none handed over again, the replaced one is refused too,
// nothing waits in its outbox (the first release took the server's 426 for
// "away" and handed all six over). The clerk scans
// two fresh labels: the server decides them (redeemed at Desk D), desk A
// then holds them used and refuses them. The operator sees the old desk:
// qrdesk_desks_old_protocol counts it, and its served redemptions are
// counted. Its sync is still refused. With the network down, the old desk
// redeems alone as it always did, and the redemption waits in its outbox
// (refused sync) until qrdesk is upgraded on it. The releases read the
// real clock: so does this test's server.
func TestOldDesksDuringRollOut(t *testing.T) {
	t.Parallel()
	for _, commit := range []string{firstReleaseCommit, beforeVersionsCommit} {
		t.Run(commit, func(t *testing.T) {
			var bin string
			if commit == beforeVersionsCommit {
				bin = buildOldDesk(t) // the same commit, kept by desk_protocol1_test.go
			} else {
				bin = buildReleaseDesk(t, commit)
			}
			testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
				// The old desk makes the deployment's key ring; the
				// server and desk A load a copy.
				h, d := firstReleaseBeside(t, dbPath, bin)

				a := h.Desk(t, "Desk A", "A", h.Station(t, "Desk A", "A"))
				codes := a.Issue(t, 10)
				a.Sync(t)
				used, fresh, offline, replaced := codes[:5], codes[5:7], codes[7], codes[8]
				for _, c := range used {
					if v := a.Redeem(t, c, "li"); v.Outcome != app.OutcomeRedeemed {
						t.Fatalf("desk A redeems %s online: %+v", c, v)
					}
				}
				a.Replace(t, replaced, "li")
				a.Sync(t)
				out := d.run(t, "sync", "--server", h.URL, "--token", h.Station(t, "Desk D", "D"))
				t.Logf("old desk: qrdesk sync --server … --token …\n%s", out)
				if strings.Contains(out, "synced") {
					t.Fatalf("the old desk's sync was served: %s", out)
				}

				for i, c := range used {
					out := d.run(t, "redeem", c)
					if i == 0 {
						t.Logf("old desk: qrdesk redeem <label used at desk A>\n%s", out)
					}
					if strings.HasPrefix(out, "Redeemed") || !strings.Contains(out, "Desk A") {
						t.Errorf("old desk scans %s, redeemed online at desk A: %q, want refused as used at Desk A", c, out)
					}
				}
				if out := d.run(t, "redeem", replaced); strings.HasPrefix(out, "Redeemed") {
					t.Errorf("old desk scans a label desk A replaced: %q, want refused", out)
				}
				if got := d.outbox(t); got["pending"] != 0 {
					t.Errorf("old desk's outbox after scanning used labels: %v, want nothing decided alone", got)
				}
				for _, c := range fresh {
					out := d.run(t, "redeem", c)
					t.Logf("old desk: qrdesk redeem <fresh label>\n%s", out)
					if !strings.HasPrefix(out, "Redeemed") {
						t.Fatalf("old desk scans fresh %s: %q, want redeemed", c, out)
					}
					if status, station := h.Server(t).StatusAndStation(c); status != "used" || station != "Desk D" {
						t.Errorf("after the old desk's scan the server holds %s %s at %q, want used at Desk D", c, status, station)
					}
				}
				if got := d.outbox(t); got["pending"] != 0 {
					t.Errorf("old desk's outbox after its online scans: %v, want none waiting (the server decided)", got)
				}
				a.Sync(t)
				for _, c := range fresh {
					if v := a.Redeem(t, c, "li"); v.Outcome == app.OutcomeRedeemed {
						t.Errorf("desk A hands %s over again after the old desk's online scan", c)
					}
				}
				if line := metricLine(t, h, "qrdesk_desks_old_protocol{"); !strings.HasSuffix(line, " 1") {
					t.Errorf("metrics: %q, want one desk on an old protocol", line)
				}
				if line := metricLine(t, h, `qrdesk_old_desk_requests_total{answer="served",route="POST /v1/redeem"}`); !strings.HasSuffix(line, " 8") {
					t.Errorf("metrics: %q, want the old desk's 8 scans served", line)
				}

				// Network down: the old desk decides alone, as before.
				back := d.offline(t)
				out = d.run(t, "redeem", offline)
				t.Logf("old desk, network down: qrdesk redeem <label>\n%s", out)
				if !strings.HasPrefix(out, "Redeemed") {
					t.Fatalf("old desk offline: %q, want redeemed alone", out)
				}
				back()
				d.run(t, "sync")
				if got := d.outbox(t); got["pending"] != 1 || got["rejected"] != 0 {
					t.Errorf("old desk's outbox after its offline scan and a refused sync: %v, want it waiting", got)
				}
			})
		})
	}
}

// TestOldDeskOnlineRedemptionAfterRestore: during the roll-out window the
// server decides an old desk's online scan, so a restore from a backup
// taken before loses it (qrdesk-server restore starts a new history
// epoch). The desk of 8fd1ea8 held the label used: it refuses it itself
// after the restore. Once qrdesk is upgraded on it, its first sync (told
// the server lost history) sends the redemption again: the server holds
// it used at Desk D, and desk A refuses it. The first release kept only
// the scan of a label it never synced: the upgraded desk sends that scan's
// redemption too. (Until its upgrade a first-release desk asks the server
// about every scan, so the restored server's answer decides there: open,
// docs/design.md, server restore × versions.)
func TestOldDeskOnlineRedemptionAfterRestore(t *testing.T) {
	t.Parallel()
	current := buildCurrentDesk(t)
	for _, commit := range []string{beforeVersionsCommit, firstReleaseCommit} {
		t.Run(commit, func(t *testing.T) {
			var bin string
			if commit == beforeVersionsCommit {
				bin = buildOldDesk(t)
			} else {
				bin = buildReleaseDesk(t, commit)
			}
			testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
				g := newRestorable(t, dbPath)
				g.Now = time.Now().Truncate(time.Second)
				a := g.deskAt(t, "Desk A", "A")
				codes := a.Issue(t, 3)
				a.Sync(t)
				d := oldDesk{bin: bin, db: filepath.Join(t.TempDir(), "d.db"), key: filepath.Join(g.dir, "qrdesk.key")}
				d.run(t, "init")
				d.run(t, "settings", "--station-id", "D", "--station-name", "Desk D")
				d.run(t, "sync", "--server", g.URL, "--token", g.Station(t, "Desk D", "D"))
				backup := g.backup()

				x := codes[0]
				if out := d.run(t, "redeem", x); !strings.HasPrefix(out, "Redeemed") {
					t.Fatalf("old desk scans %s online: %q, want redeemed", x, out)
				}
				g.restore(backup)
				if _, err := g.DB.StartEpoch(context.Background()); err != nil {
					t.Fatal(err)
				}
				a.Sync(t)
				if commit == beforeVersionsCommit {
					if out := d.run(t, "redeem", x); strings.HasPrefix(out, "Redeemed") {
						t.Errorf("after the restore the old desk hands %s over again: %q", x, out)
					}
				}
				d = d.upgrade(current)
				for i := 0; i < 2; i++ {
					if out := d.run(t, "sync"); !strings.Contains(out, "synced") {
						t.Fatalf("upgraded desk sync: %s", out)
					}
				}
				if status, station := g.Server(t).StatusAndStation(x); status != "used" || station != "Desk D" {
					t.Errorf("after the restore and the old desk's upgrade the server holds %s %s at %q, want used at Desk D", x, status, station)
				}
				a.Sync(t)
				if v := a.Redeem(t, x, "li"); v.Outcome == app.OutcomeRedeemed {
					t.Errorf("desk A hands %s over a second time", x)
				}
			})
		})
	}
}
