package multidesk_test

import (
	"context"
	"encoding/json"
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

// oldDeskCommit is the last commit before versions (de3b444): its desk
// speaks protocol 1 (no Qrdesk-Protocol header) and knows the feed kinds
// code, redeem, disable, enable, undo and conflict. docs/deploy.md says
// "Upgrade the server first, then the desks. A server knows every event
// kind of the desks of its own release and of every release before": a
// newer server with such a desk is the documented upgrade path.
const oldDeskCommit = "de3b444^"

var (
	oldDeskOnce sync.Once
	oldDeskBin  string
	oldDeskErr  string
)

// buildOldDesk builds the qrdesk binary of oldDeskCommit from this
// repository's history (skips when git or the build is not available).
func buildOldDesk(t *testing.T) string {
	t.Helper()
	oldDeskOnce.Do(func() {
		// Built once per machine and kept (a GUI build takes a minute).
		dir := filepath.Join(os.TempDir(), "qrdesk-old-desk-de3b444-parent")
		if _, err := os.Stat(filepath.Join(dir, "qrdesk-old")); err == nil {
			oldDeskBin = filepath.Join(dir, "qrdesk-old")
			return
		}
		os.RemoveAll(dir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			oldDeskErr = err.Error()
			return
		}
		top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
		if err != nil {
			oldDeskErr = "git rev-parse: " + err.Error()
			return
		}
		tarFile := filepath.Join(dir, "src.tar")
		if out, err := exec.Command("git", "-C", strings.TrimSpace(string(top)), "archive", "-o", tarFile, oldDeskCommit).CombinedOutput(); err != nil {
			oldDeskErr = "git archive: " + string(out)
			return
		}
		if out, err := exec.Command("tar", "-x", "-C", dir, "-f", tarFile).CombinedOutput(); err != nil {
			oldDeskErr = "tar: " + string(out)
			return
		}
		bin := filepath.Join(dir, "qrdesk-old")
		build := exec.Command("go", "build", "-o", bin, ".")
		build.Dir = dir
		if out, err := build.CombinedOutput(); err != nil {
			oldDeskErr = "build: " + string(out)
			return
		}
		oldDeskBin = bin
	})
	if oldDeskBin == "" {
		t.Skip("no old desk binary: " + oldDeskErr)
	}
	return oldDeskBin
}

// oldDesk is a real qrdesk process of the release before versions.
type oldDesk struct {
	bin, db, key string
}

func (o oldDesk) run(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(o.bin, args...)
	cmd.Env = append(os.Environ(), "QRDESK_DB="+o.db, "QRDESK_KEY_FILE="+o.key, "QRDESK_OPERATOR=wang")
	out, _ := cmd.CombinedOutput()
	return string(out)
}

func (o oldDesk) Status(t *testing.T, code string) string {
	t.Helper()
	out := o.run(t, "check", "--json", code)
	var v struct{ Status string }
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("old desk check %s: %s", code, out)
	}
	return v.Status
}

// TestOldDeskNeverLearnsReplaceOrExpiry: a desk of the release before
// versions (protocol 1, upgraded after the server as docs/deploy.md says)
// syncs with this server. Desk A replaces X by Y and redeems Y, and closes
// the day with --expire-unused (Z expired). The old desk syncs, online,
// and still holds X and Z "unused": the server feeds it kinds it does not
// know (replace, expire) and ignores the desk's protocol (it never reads
// Qrdesk-Protocol). Its copy never equals the server's, and offline it
// hands over X, whose entitlement (Y) it could have known was used.
func TestOldDeskNeverLearnsReplaceOrExpiry(t *testing.T) {
	bin := buildOldDesk(t)
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 0)
		keyFile := filepath.Join(t.TempDir(), "qrdesk.key")
		keys, err := app.LoadKeys(keyFile, true)
		if err != nil {
			t.Fatal(err)
		}
		h.Keys, h.Ring = keys, keys.RingID()
		h.Now = time.Now().Truncate(time.Second)
		a := h.Desk(t, "Desk A", "A", h.Station(t, "Desk A", "A"))
		tokD := h.Station(t, "Desk D", "D")
		tokFile := filepath.Join(t.TempDir(), "d.token")
		os.WriteFile(tokFile, []byte(tokD+"\n"), 0o600)
		d := oldDesk{bin: bin, db: filepath.Join(t.TempDir(), "d.DB"), key: keyFile}
		d.run(t, "init")
		d.run(t, "settings", "--station-id", "D", "--station-name", "Desk D")

		codes := a.Issue(t, 3)
		a.Sync(t)
		if out := d.run(t, "sync", "--server", h.URL, "--token-file", tokFile); !strings.Contains(out, "synced") {
			t.Fatalf("old desk sync: %s", out)
		}
		x, z := codes[0], codes[1]
		rep, err := a.Svc.Replace(context.Background(), app.ReplaceRequest{Code: x, Reason: "torn", Operator: "li"})
		if err != nil {
			t.Fatal(err)
		}
		y := rep.New.Code
		if v := a.Redeem(t, y, "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("redeem Y: %+v", v)
		}
		if _, err := a.Svc.CloseDay(context.Background(), app.CloseDayRequest{ExpireUnused: true, Operator: "li"}); err != nil {
			t.Fatal(err)
		}
		a.Sync(t)
		for i := 0; i < 2; i++ {
			if out := d.run(t, "sync"); !strings.Contains(out, "synced") {
				t.Fatalf("old desk sync: %s", out)
			}
		}
		for _, c := range []string{x, y, z} {
			want, _ := serverStatusOf(t, h, c)
			if got := d.Status(t, c); got != want {
				t.Errorf("after two syncs the old desk holds %s %s, the server %s", c, got, want)
			}
		}
	})
}

func serverStatusOf(t *testing.T, h *centraltest.Harness, code string) (string, error) {
	var s string
	err := h.DB.QueryRowForTests(`SELECT status FROM codes WHERE code = ?`, code).Scan(&s)
	return s, err
}

// TestOldDeskRedemptionLostInRestore: a desk of the release before
// versions (protocol 1) redeems X online and is told "redeemed"; the
// server is then restored from a backup taken before. Desk A, of this
// release, finds the restore and sends its three online redemptions
// again, which takes the restored feed past the old desk's cursor; the
// old desk gets no feed_reset (the server never checks what a protocol-1
// desk applied at its cursor) and never sends X again. The acknowledged
// redemption is lost: the server holds X unused, desk A hands X over a
// second time online, and no conflict is ever recorded.
func TestOldDeskRedemptionLostInRestore(t *testing.T) {
	bin := buildOldDesk(t)
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		g := newRestorable(t, dbPath)
		g.Now = time.Now().Truncate(time.Second)
		a := g.deskAt(t, "Desk A", "A")
		tokD := g.Station(t, "Desk D", "D")
		tokFile := filepath.Join(t.TempDir(), "d.token")
		os.WriteFile(tokFile, []byte(tokD+"\n"), 0o600)
		d := oldDesk{bin: bin, db: filepath.Join(t.TempDir(), "d.DB"), key: filepath.Join(g.dir, "qrdesk.key")}
		d.run(t, "init")
		d.run(t, "settings", "--station-id", "D", "--station-name", "Desk D")
		codes := a.Issue(t, 5)
		a.Sync(t)
		if out := d.run(t, "sync", "--server", g.URL, "--token-file", tokFile); !strings.Contains(out, "synced") {
			t.Fatalf("old desk sync: %s", out)
		}
		backup := g.backup()
		x := codes[0]
		if out := d.run(t, "redeem", x); !strings.HasPrefix(out, "Redeemed") {
			t.Fatalf("old desk online redeem: %s", out)
		}
		d.run(t, "sync")
		for _, c := range codes[1:4] {
			if v := a.Redeem(t, c, "li"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("desk A: %+v", v)
			}
		}
		a.Sync(t)

		g.restore(backup)
		a.Sync(t)
		for i := 0; i < 2; i++ {
			if out := d.run(t, "sync"); !strings.Contains(out, "synced") {
				t.Fatalf("old desk sync: %s", out)
			}
		}
		a.Sync(t)
		if status, station := g.serverStatus(t, x); status != "used" || station != "Desk D" {
			t.Errorf("the old desk was told \"redeemed\" for %s; after the restore and its syncs the server has it %s (%q)", x, status, station)
		}
		if v := a.Redeem(t, x, "li"); v.Outcome == app.OutcomeRedeemed {
			t.Errorf("desk A hands %s over a second time online (the old desk did before the restore); conflicts on the server: %d",
				x, centraltest.Count(t, g.DB, `SELECT count(*) FROM conflicts`))
		}
	})
}
