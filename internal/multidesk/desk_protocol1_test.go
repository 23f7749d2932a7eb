package multidesk_test

import (
	"context"
	"database/sql"
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
	"qrdesk/protocol"
)

// oldDeskCommit is the last commit before versions (de3b444): its desk
// speaks protocol 1 (no Qrdesk-Protocol header) and knows the feed kinds
// code, redeem, disable, enable, undo and conflict. docs/deploy.md says
// "Upgrade the server first, then every desk": between the two, such a
// desk meets this server, which decides its online redemptions during the
// roll-out window (rollout_old_desks_test.go) and refuses everything else
// (426 desk_too_old) until qrdesk is upgraded on it; once the window is
// closed (serve --old-desks refuse), everything.
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

// buildCurrentDesk builds this tree's qrdesk (without the window) into
// the test's folder: the upgrade of an old desk is this binary run on the
// old desk's files. The build cache makes every build after the first a
// link.
func buildCurrentDesk(t *testing.T) string {
	t.Helper()
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Fatal("git rev-parse: " + err.Error())
	}
	bin := filepath.Join(t.TempDir(), "qrdesk")
	build := exec.Command("go", "build", "-tags", "qrdesk_nogui", "-o", bin, ".")
	build.Dir = strings.TrimSpace(string(top))
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build this tree's qrdesk: %s", out)
	}
	return bin
}

// oldDesk is a real qrdesk process of the release before versions; after
// upgrade, the same desk (its database, key and sync.json) run by this
// tree's qrdesk.
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
		t.Fatalf("desk check %s: %s", code, out)
	}
	return v.Status
}

// upgrade is the desk after qrdesk was upgraded on it (bin): the same
// files.
func (o oldDesk) upgrade(bin string) oldDesk {
	o.bin = bin
	return o
}

// offline points the desk's saved server at a closed port (the network
// is down) and returns the function that points it back.
func (o oldDesk) offline(t *testing.T) (back func()) {
	t.Helper()
	path := filepath.Join(filepath.Dir(o.db), "sync.json")
	saved, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var sc map[string]string
	if err := json.Unmarshal(saved, &sc); err != nil {
		t.Fatal(err)
	}
	sc["server"] = "http://127.0.0.1:1"
	down, _ := json.Marshal(sc)
	if err := os.WriteFile(path, down, 0o600); err != nil {
		t.Fatal(err)
	}
	return func() {
		if err := os.WriteFile(path, saved, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// outbox counts the desk's events by state (pending, sent, rejected),
// read from its database as the old release left it.
func (o oldDesk) outbox(t *testing.T) map[string]int {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+o.db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT state, count(*) FROM outbox GROUP BY state`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[string]int{}
	for rows.Next() {
		var state string
		var n int
		if err := rows.Scan(&state, &n); err != nil {
			t.Fatal(err)
		}
		got[state] = n
	}
	return got
}

// wantTooOld fails unless out is the desk saying the server refuses it as
// too old.
func wantTooOld(t *testing.T, what, out string) {
	t.Helper()
	if !strings.Contains(out, protocol.DeskTooOldReason) {
		t.Fatalf("%s at the old desk: %q, want the server's refusal %q", what, out, protocol.DeskTooOldReason)
	}
}

// newOldDesk sets up a desk of the release before versions (protocol 1)
// with the deployment's key file and its station's token, and has it
// sync the first time: the server (this release) refuses it.
func newOldDesk(t *testing.T, url, token, keyFile string) oldDesk {
	t.Helper()
	d := oldDesk{bin: buildOldDesk(t), db: filepath.Join(t.TempDir(), "d.DB"), key: keyFile}
	d.run(t, "init")
	d.run(t, "settings", "--station-id", "D", "--station-name", "Desk D")
	tokFile := filepath.Join(t.TempDir(), "d.token")
	if err := os.WriteFile(tokFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := d.run(t, "sync", "--server", url, "--token-file", tokFile)
	t.Logf("old desk: qrdesk sync --server … --token-file …\n%s", out)
	wantTooOld(t, "the first sync", out)
	return d
}

// TestOldDeskIsRefusedUntilUpgraded: a desk of the release before
// versions (protocol 1) cannot learn replace or the day's expiry from the
// feed, so once the roll-out window is closed the server refuses it on
// every desk endpoint (426 desk_too_old) instead of serving it a copy it
// would get wrong. Desk A
// replaces X by Y, redeems Y and expires Z; the old desk's sync is
// refused, and its scans of X, Y and Z are refused by the server and
// logged so, nothing redeemed: it decides nothing alone. Upgraded (this
// tree's qrdesk on its files), it syncs and holds what the server holds,
// and refuses X.
func TestOldDeskIsRefusedUntilUpgraded(t *testing.T) {
	t.Parallel()
	buildOldDesk(t)
	current := buildCurrentDesk(t)
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 0)
		keyFile := filepath.Join(t.TempDir(), "qrdesk.key")
		keys, err := app.LoadKeys(keyFile, true)
		if err != nil {
			t.Fatal(err)
		}
		h.Keys, h.Ring = keys, keys.RingID()
		h.Now = time.Now().Truncate(time.Second)
		h.API.SetOldDesks(false)
		a := h.Desk(t, "Desk A", "A", h.Station(t, "Desk A", "A"))
		codes := a.Issue(t, 3)
		a.Sync(t)
		d := newOldDesk(t, h.URL, h.Station(t, "Desk D", "D"), keyFile)

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

		wantTooOld(t, "sync", d.run(t, "sync"))
		for _, c := range []string{x, y, z} {
			out := d.run(t, "redeem", c)
			t.Logf("old desk: qrdesk redeem <label>\n%s", out)
			wantTooOld(t, "redeem", out)
			if strings.HasPrefix(out, "Redeemed") {
				t.Errorf("the old desk redeemed %s: %s", c, out)
			}
		}
		if got := d.outbox(t); got["pending"]+got["sent"]+got["rejected"] != 0 {
			t.Errorf("the old desk's outbox after refused scans: %v, want empty (nothing decided alone)", got)
		}
		var stats struct {
			Redeemed int
			Refused  map[string]int
		}
		if out := d.run(t, "stats", "--json"); json.Unmarshal([]byte(out), &stats) != nil || stats.Refused["server_refused"] != 3 || stats.Redeemed != 0 {
			t.Errorf("the old desk's figures: %s, want its 3 scans refused by the server, none redeemed", out)
		}

		d = d.upgrade(current)
		for i := 0; i < 2; i++ {
			out := d.run(t, "sync")
			t.Logf("upgraded desk: qrdesk sync\n%s", out)
			if !strings.Contains(out, "synced") {
				t.Fatalf("upgraded desk sync: %s", out)
			}
		}
		for _, c := range []string{x, y, z} {
			want, _ := h.Server(t).StatusAndStation(c)
			if got := d.Status(t, c); got != want {
				t.Errorf("the upgraded desk holds %s %s, the server %s", c, got, want)
			}
		}
		if out := d.run(t, "redeem", x); strings.HasPrefix(out, "Redeemed") {
			t.Errorf("the upgraded desk hands over X, replaced by Y (used): %s", out)
		}
	})
}

// TestOldDeskRedemptionSurvivesRestore: a desk of the release before
// versions (protocol 1), once the roll-out window is closed, is refused
// (426 desk_too_old), so the server
// never acknowledges a redemption it could lose without the desk noticing:
// its online scan of X is refused, nothing redeemed. Offline (the network
// down) it redeems X alone; the server is restored from a backup and desk
// A sends its online redemptions again, past where the feed was; the old
// desk is still refused and keeps X waiting (not rejected). Upgraded, it
// sends X: the server holds X used at Desk D, and desk A cannot hand it
// over again.
func TestOldDeskRedemptionSurvivesRestore(t *testing.T) {
	t.Parallel()
	buildOldDesk(t)
	current := buildCurrentDesk(t)
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		g := newRestorable(t, dbPath)
		g.Now = time.Now().Truncate(time.Second)
		g.refuseOldDesks = true
		g.serve()
		a := g.deskAt(t, "Desk A", "A")
		codes := a.Issue(t, 5)
		a.Sync(t)
		d := newOldDesk(t, g.URL, g.Station(t, "Desk D", "D"), filepath.Join(g.dir, "qrdesk.key"))
		backup := g.backup()

		x := codes[0]
		out := d.run(t, "redeem", x)
		wantTooOld(t, "online redeem", out)
		if status, _ := g.Server(t).StatusAndStation(x); status != "unused" {
			t.Fatalf("after the old desk's refused scan the server holds %s %s", x, status)
		}
		back := d.offline(t)
		out = d.run(t, "redeem", x)
		t.Logf("old desk, network down: qrdesk redeem <label>\n%s", out)
		if !strings.HasPrefix(out, "Redeemed") {
			t.Fatalf("old desk offline redeem: %s", out)
		}
		back()
		for _, c := range codes[1:4] {
			if v := a.Redeem(t, c, "li"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("desk A: %+v", v)
			}
		}
		a.Sync(t)

		g.restore(backup)
		a.Sync(t)
		for i := 0; i < 2; i++ {
			wantTooOld(t, "sync after the restore", d.run(t, "sync"))
		}
		if got := d.outbox(t); got["pending"] != 1 || got["rejected"] != 0 {
			t.Fatalf("the old desk's outbox while refused: %v, want X pending", got)
		}
		a.Sync(t)

		d = d.upgrade(current)
		for i := 0; i < 2; i++ {
			out := d.run(t, "sync")
			t.Logf("upgraded desk: qrdesk sync\n%s", out)
			if !strings.Contains(out, "synced") {
				t.Fatalf("upgraded desk sync: %s", out)
			}
		}
		a.Sync(t)
		if status, station := g.Server(t).StatusAndStation(x); status != "used" || station != "Desk D" {
			t.Errorf("the old desk redeemed %s offline; after its upgrade the server has it %s (%q)", x, status, station)
		}
		if v := a.Redeem(t, x, "li"); v.Outcome == app.OutcomeRedeemed {
			t.Errorf("desk A hands %s over a second time online (the old desk did offline)", x)
		}
		if got := d.Status(t, x); got != "used" {
			t.Errorf("the upgraded desk holds %s %s, want used", x, got)
		}
	})
}
