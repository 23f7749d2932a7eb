package multidesk_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// TestHostileOldDeskOperatorTheServerRefuses: during the roll-out window
// the server decides a first-release desk's online scans, because that
// release redeems alone after any answer but 200. The first release takes
// any operator name at a scan (--operator, $QRDESK_OPERATOR, the login
// name; its settings check only the length), today's server refuses
// names over 40 characters or with a control character or an invisible
// direction mark with 400. So a label desk A redeemed online is handed
// over again at the old desk (the server was up and knew it used), and
// when qrdesk is upgraded on the old desk its outbox events are refused
// for the same name: the double use never becomes a conflict.
func TestHostileOldDeskOperatorTheServerRefuses(t *testing.T) {
	t.Parallel()
	bin := buildReleaseDesk(t, firstReleaseCommit)
	current := buildCurrentDesk(t)
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, d := firstReleaseBeside(t, dbPath, bin)
		a := h.Desk(t, "Desk A", "A", h.Station(t, "Desk A", "A"))
		codes := a.Issue(t, 2)
		a.Sync(t)
		d.run(t, "sync", "--server", h.URL, "--token", h.Station(t, "Desk D", "D"))

		names := []string{strings.Repeat("x", 41), "Dana\u200f"}
		for i, c := range codes {
			if v := a.Redeem(t, c, "li"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("desk A redeems %s online: %+v", c, v)
			}
			out := d.run(t, "redeem", "--operator", names[i], c)
			if strings.HasPrefix(out, "Redeemed") {
				t.Errorf("the server up, the old desk (operator %q) hands over %s, redeemed online at desk A: %q", names[i], c, out)
			}
		}
		d = d.upgrade(current)
		for i := 0; i < 2; i++ {
			d.run(t, "sync")
		}
		if n := centraltest.Count(t, h.DB, `SELECT COUNT(*) FROM conflicts`); n != 0 {
			return // the double uses are recorded at least
		}
		out := d.run(t, "sync")
		t.Errorf("after the upgrade the server records no conflict for the labels handed over twice; the desk's sync: %s", out)
	})
}

// firstReleaseBeside is a server (real clock) and a first-release desk D
// whose key ring it shares.
func firstReleaseBeside(t *testing.T, dbPath func(t testing.TB) string, bin string) (*centraltest.Harness, oldDesk) {
	t.Helper()
	h := centraltest.New(t, dbPath, 0)
	d := oldDesk{bin: bin, db: filepath.Join(t.TempDir(), "d.db"), key: filepath.Join(t.TempDir(), "qrdesk.key")}
	d.run(t, "init")
	d.run(t, "settings", "--station-id", "D", "--station-name", "Desk D", "--configured", "true", "--operator", "setup")
	keyCopy := filepath.Join(t.TempDir(), "qrdesk.key")
	data, err := os.ReadFile(d.key)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyCopy, data, 0o600); err != nil {
		t.Fatal(err)
	}
	keys, err := app.LoadKeys(keyCopy, false)
	if err != nil {
		t.Fatal(err)
	}
	h.Keys, h.Ring = keys, keys.RingID()
	h.Now = time.Now().Truncate(time.Second)
	return h, d
}

// TestHostileRevokedOldDeskHandsOverAlone: the Desks page flags a
// first-release desk Too old and offers to revoke it. Revoked, the server
// answers its scans 403, which that release takes for "away": it hands
// over a label desk A redeemed online a moment before, the server up.
func TestHostileRevokedOldDeskHandsOverAlone(t *testing.T) {
	t.Parallel()
	bin := buildReleaseDesk(t, firstReleaseCommit)
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, d := firstReleaseBeside(t, dbPath, bin)
		a := h.Desk(t, "Desk A", "A", h.Station(t, "Desk A", "A"))
		codes := a.Issue(t, 1)
		a.Sync(t)
		d.run(t, "sync", "--server", h.URL, "--token", h.Station(t, "Desk D", "D"))
		if err := h.DB.RevokeStation(context.Background(), "Desk D", h.Now.Unix()); err != nil {
			t.Fatal(err)
		}
		if v := a.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A redeems online: %+v", v)
		}
		if out := d.run(t, "redeem", codes[0]); strings.HasPrefix(out, "Redeemed") {
			t.Errorf("the revoked first-release desk hands over %s, redeemed online at desk A, the server up: %q", codes[0], out)
		}
	})
}
