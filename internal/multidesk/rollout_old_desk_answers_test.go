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

// TestOldDeskOperatorTheServerRefuses: during the roll-out window
// the server decides a first-release desk's online scans, because that
// release redeems alone after any answer but 200. The first release takes
// any operator name at a scan (--operator, $QRDESK_OPERATOR, the login
// name; the window's clerk is settings --default-operator, checked for
// length only), and today's server refuses names over 40 characters or
// with a control character or an invisible direction mark. Refused with
// a 400, that desk handed over a label desk A had redeemed online a moment
// before. The server answers such a refusal as a 200 "disabled" verdict
// instead, which that release shows and follows. And what the old desk
// redeemed offline under such a name reaches the server after its
// upgrade, under the name cleaned: a double use there is a conflict.
func TestOldDeskOperatorTheServerRefuses(t *testing.T) {
	t.Parallel()
	bin := buildReleaseDesk(t, firstReleaseCommit)
	current := buildCurrentDesk(t)
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, d := firstReleaseBeside(t, dbPath, bin)
		a := h.Desk(t, "Desk A", "A", h.Station(t, "Desk A", "A"))
		codes := a.Issue(t, 3)
		a.Sync(t)
		d.run(t, "sync", "--server", h.URL, "--token", h.Station(t, "Desk D", "D"))

		names := []string{strings.Repeat("x", 41), "Dana\u200f", "Tab\tName"}
		for i, c := range codes[:2] {
			if v := a.Redeem(t, c, "li"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("desk A redeems %s online: %+v", c, v)
			}
			out := d.run(t, "redeem", "--operator", names[i], c)
			if !strings.HasPrefix(out, "Disabled: the server refused this desk's scan, do not hand over") {
				t.Errorf("the server up, the old desk (operator %q) scans %s, redeemed online at desk A: %q, want the server's refusal as a disabled verdict", names[i], c, out)
			}
		}
		// Offline, the old desk decides alone under a name the server
		// refuses; desk A hands the same label over online.
		back := d.offline(t)
		if out := d.run(t, "redeem", "--operator", names[2], codes[2]); !strings.HasPrefix(out, "Redeemed") {
			t.Fatalf("old desk offline: %q, want redeemed alone", out)
		}
		back()
		if v := a.Redeem(t, codes[2], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A redeems %s online: %+v", codes[2], v)
		}
		d = d.upgrade(current)
		for i := 0; i < 2; i++ {
			d.run(t, "sync")
		}
		got := centraltest.Count(t, h.DB, `SELECT COUNT(*) FROM conflicts WHERE code = '`+codes[2]+`'`)
		if got != 1 {
			t.Errorf("after the upgrade the server records %d conflicts of %s, handed over offline at the old desk (operator %q) and online at desk A; want 1; the desk's sync: %s", got, codes[2], names[2], d.run(t, "sync"))
		}
		if n := centraltest.Count(t, h.DB, `SELECT COUNT(*) FROM conflicts`); n != got {
			t.Errorf("the server records %d conflicts in all, want only %s's: the refused scans handed nothing over", n, codes[2])
		}
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

// TestRevokedOldDeskHandsOverAlone: the Desks page flags a
// first-release desk Too old and offers to revoke it; its token may also
// be renewed (the new token not yet typed in at the desk), or the server
// restored to before the station was added. Answered 403 or 401, that
// release took it for "away" and handed over a label desk A redeemed
// online a moment before, the server up; during the roll-out window the
// server answers such a refusal as a disabled verdict, which it follows.
func TestRevokedOldDeskHandsOverAlone(t *testing.T) {
	t.Parallel()
	bin := buildReleaseDesk(t, firstReleaseCommit)
	for _, how := range []string{"revoked", "renewed"} {
		t.Run(how, func(t *testing.T) {
			testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
				ctx := context.Background()
				h, d := firstReleaseBeside(t, dbPath, bin)
				a := h.Desk(t, "Desk A", "A", h.Station(t, "Desk A", "A"))
				codes := a.Issue(t, 1)
				a.Sync(t)
				d.run(t, "sync", "--server", h.URL, "--token", h.Station(t, "Desk D", "D"))
				var err error
				if how == "revoked" {
					err = h.DB.RevokeStation(ctx, "Desk D", h.Now.Unix())
				} else {
					err = h.DB.RenewStation(ctx, "Desk D", strings.Repeat("0", 64))
				}
				if err != nil {
					t.Fatal(err)
				}
				if v := a.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
					t.Fatalf("desk A redeems online: %+v", v)
				}
				if out := d.run(t, "redeem", codes[0]); strings.HasPrefix(out, "Redeemed") {
					t.Errorf("the %s first-release desk hands over %s, redeemed online at desk A, the server up: %q", how, codes[0], out)
				}
			})
		})
	}
}

// TestUpgradedFirstReleaseDeskSettings: the first release's
// settings --default-operator (the window's clerk) checks the length only;
// a name ending in an invisible direction mark (U+200F, common after a
// Hebrew or Arabic name) or holding a tab is stored. Today's qrdesk on
// that desk once refused every command, 'qrdesk settings' too, as damaged
// settings: the upgraded desk could not scan, sync or be fixed with the
// command it named. It uses the name cleaned ("Dana") and says so until
// the setting is saved again.
func TestUpgradedFirstReleaseDeskSettings(t *testing.T) {
	t.Parallel()
	bin := buildReleaseDesk(t, firstReleaseCommit)
	current := buildCurrentDesk(t)
	d := oldDesk{bin: bin, db: filepath.Join(t.TempDir(), "d.db"), key: filepath.Join(t.TempDir(), "qrdesk.key")}
	d.run(t, "init")
	d.run(t, "settings", "--default-operator", "Dana\u200f")
	d = d.upgrade(current)
	for _, args := range [][]string{{"stats"}, {"settings"}, {"settings", "--default-operator", "Dana"}} {
		if out := d.run(t, args...); strings.Contains(out, "damaged") {
			t.Errorf("upgraded first-release desk, qrdesk %s: %s", strings.Join(args, " "), out)
		}
	}
	d = oldDesk{bin: current, db: filepath.Join(t.TempDir(), "e.db"), key: d.key}
	old := oldDesk{bin: bin, db: d.db, key: d.key}
	old.run(t, "settings", "--default-operator", "Dana\u200f")
	out := d.run(t, "settings")
	if !strings.Contains(out, "operator       Dana\n") || !strings.Contains(out, `warning: the stored setting operator "Dana\u200f" is not allowed`) {
		t.Errorf("upgraded desk's settings: %s\nwant the operator cleaned to Dana, with a warning", out)
	}
	d.run(t, "settings", "--default-operator", "Dana")
	if out := d.run(t, "settings"); strings.Contains(out, "warning") {
		t.Errorf("settings saved again still warn: %s", out)
	}
}
