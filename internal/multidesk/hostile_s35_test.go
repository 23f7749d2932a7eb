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
	"qrdesk/protocol"
)

// TestHostileOldDeskOperatorTheServerRefuses: during the roll-out window
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
func TestHostileOldDeskOperatorTheServerRefuses(t *testing.T) {
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

// TestHostileRevokedOldDeskHandsOverAlone: the Desks page flags a
// first-release desk Too old and offers to revoke it; its token may also
// be renewed (the new token not yet typed in at the desk), or the server
// restored to before the station was added. Answered 403 or 401, that
// release took it for "away" and handed over a label desk A redeemed
// online a moment before, the server up; during the roll-out window the
// server answers such a refusal as a disabled verdict, which it follows.
func TestHostileRevokedOldDeskHandsOverAlone(t *testing.T) {
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

// TestHostileRemovedSupervisorOfflineCloseExpires: expiring the day's
// unused labels needs a supervisor at the desk, as Disable and Replace do
// (ui/closeday). Offline, a disable or replace by a supervisor the
// server's list had removed is refused and flagged
// (TestRemovedSupervisorOfflineDisableEnableReplaceRefused). The same
// removed supervisor's close with --expire-unused, made at desk B offline
// after the removal, expired every unused label of the site at the
// server, unflagged; each expiry is now refused and flagged the same way.
func TestHostileRemovedSupervisorOfflineCloseExpires(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 3)
		changeStaff(t, h, protocol.StaffChange{Action: protocol.StaffAdd, Name: "wang", Supervisor: true}, "1357")
		a.Sync(t)
		b.Sync(t)
		b.Offline(func() {
			h.Now = h.Now.Add(time.Minute)
			changeStaff(t, h, protocol.StaffChange{Action: protocol.StaffRemove, Name: "wang"}, "")
			h.Now = h.Now.Add(10 * time.Minute)
			if _, err := b.Svc.CloseDay(ctx, app.CloseDayRequest{ExpireUnused: true, Operator: "wang"}); err != nil {
				t.Fatalf("desk B offline: wang's close: %v", err)
			}
		})
		b.Sync(t)
		a.Sync(t)
		expired := centraltest.Count(t, h.DB, `SELECT count(*) FROM codes WHERE status = 'expired'`)
		flagged, listed := removedStaffExpiries(t, h.DB)
		if expired > 0 || flagged != len(codes) || listed != len(codes) {
			t.Errorf("supervisor wang, removed at the server, closed the day with --expire-unused at desk B offline: the server expired %d of %d labels (%s at desk A: %s), flagged %d expiries, %d in the removed staff's work; want none expired, each refused and flagged as a disable by wang is",
				expired, len(codes), codes[0], a.Status(t, codes[0]), flagged, listed)
		}
		b.Sync(t)
		for _, code := range codes {
			if got := b.Status(t, code); got != "unused" {
				t.Errorf("desk B's copy of %s after the refused expiry: %s, want unused (as the server has it)", code, got)
			}
		}
	})
}

// TestHostileCloseAcrossASiteRename: a close's expiry names the site the
// desk closed in, and the server applies it only where that name is the
// desk's site as it holds it (central.CloseSiteRefusal). The docs have
// the operator rename an upgraded deployment's site 'main'
// (qrdesk-server site rename main NAME). Desk B, which never moved,
// closes its day with --expire-unused while offline (or before its next
// sync) across such a rename: the server refuses every expiry as made in
// another site, and the labels the clerk expired are unused again.
func TestHostileCloseAcrossASiteRename(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 2)
		a.Sync(t)
		b.Sync(t)
		var expiredThere int
		b.Offline(func() {
			if err := h.DB.RenameSite(ctx, "main", "Berlin"); err != nil {
				t.Fatal(err)
			}
			h.Now = h.Now.Add(time.Minute)
			expiredThere = b.CloseDay(t, true).ExpiredNow
		})
		b.Sync(t)
		a.Sync(t)
		b.Sync(t)
		for _, code := range codes {
			if got := serverStatus(t, h, code); got != "expired" {
				t.Errorf("desk B (never moved; its site renamed main → Berlin) closed its day expiring %d labels: the server holds %s %s, desk B %s, want expired", expiredThere, code, got, b.Status(t, code))
			}
		}
	})
}

// TestHostileClockSkewOfAnOnlineDesk: the alert QrdeskDeskClockSkew
// (deploy/prometheus/rules.yml) reads qrdesk_desk_clock_offset_max_seconds,
// made from the offsets events carry. Desk B's clock is a day behind; it
// syncs (measuring the offset) and its clerk issues and redeems online all
// day: the gauge stays 0 and the alert never fires, though the desk knows
// its offset.
func TestHostileClockSkewOfAnOnlineDesk(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 2)
		off := -24 * time.Hour
		b.Skew(h, &off)
		a.Sync(t)
		b.Sync(t)
		for _, c := range codes {
			b.Redeem(t, c, "li")
		}
		b.Sync(t)
		line := metricLine(t, h, `qrdesk_desk_clock_offset_max_seconds{site="main"}`)
		if strings.HasSuffix(line, " 0") || line == "" {
			t.Errorf("desk B's clock is a day behind, it synced and redeemed online: %q", line)
		}
	})
}

// TestHostileLateRemovalRemovesTheRehired: desk B's manager removes kim
// (a lost badge) while B is offline. At the server kim is removed too and,
// a minute later, added again with a new PIN. B's removal, made before the
// new record existed, arrives afterwards: the server removed the kim it
// had just added, and kim could work at no desk. It is refused now, as a
// removal of the earlier record, and desk B learns the new kim.
func TestHostileLateRemovalRemovesTheRehired(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 1)
		for _, d := range []*centraltest.Desk{a, b} {
			d.DB.UseClock(func() time.Time { return h.Now })
		}
		changeStaff(t, h, protocol.StaffChange{Action: protocol.StaffAdd, Name: "kim"}, "1357")
		a.Sync(t)
		b.Sync(t)
		b.Offline(func() {
			h.Now = h.Now.Add(time.Minute)
			if _, err := b.Svc.Operators().Remove(ctx, "kim", "admin"); err != nil {
				t.Fatal(err)
			}
			h.Now = h.Now.Add(time.Minute)
			changeStaff(t, h, protocol.StaffChange{Action: protocol.StaffRemove, Name: "kim"}, "")
			h.Now = h.Now.Add(time.Minute)
			changeStaff(t, h, protocol.StaffChange{Action: protocol.StaffAdd, Name: "kim"}, "2468")
		})
		h.Now = h.Now.Add(time.Minute)
		a.Sync(t) // A hears of the new kim
		h.Now = h.Now.Add(time.Minute)
		if v := a.Redeem(t, codes[0], "kim"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("the new kim redeems online at desk A: %+v", v)
		}
		h.Now = h.Now.Add(time.Minute)
		b.Sync(t)
		a.Sync(t)
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM events WHERE kind = 'redeem' AND code = ? AND (flags & 64) <> 0`, codes[0]); n != 0 {
			t.Errorf("the new kim's online redemption at desk A, made while kim was on the list, is flagged as a removed operator's work after desk B's late removal")
		}
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM staff WHERE name = 'kim' AND removed_at = 0`); n != 1 {
			t.Errorf("kim, added again at the server after desk B's offline removal, is removed when that removal arrives (current kim records: %d)", n)
		}
		if _, err := b.Svc.Operators().Find(ctx, "kim"); err != nil {
			t.Errorf("desk B, synced after its late removal was refused, does not know the new kim: %v", err)
		}
	})
}

// TestHostileSerialsAfterBothRestoresOneDeskSite: TestSerialsAfterBothRestores
// with desk A the only desk of its site (a store with one desk). Desk B,
// of another site, follows only its own site's feed and holds no copy of
// A's labels, so no desk tells the restored server A's serials 4-6: A,
// restored with the server, prints them again.
func TestHostileSerialsAfterBothRestoresOneDeskSite(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		g := newRestorable(t, dbPath)
		if err := g.DB.AddSite(ctx, "Store", 1); err != nil {
			t.Fatal(err)
		}
		a, b := g.deskAt(t, "Desk A", "A"), g.deskAt(t, "Desk B", "B")
		if err := g.DB.SetStationSite(ctx, "Desk A", "Store"); err != nil {
			t.Fatal(err)
		}
		first := a.Issue(t, 3)
		a.Sync(t)
		b.Sync(t)
		serverBackup := g.backup()
		deskBackup := backupDesk(t, a.Desk)
		g.Now = g.Now.Add(time.Minute)
		printed := a.Issue(t, 3)
		a.Sync(t)
		b.Sync(t)
		g.restore(serverBackup)
		restoreDeskFile(t, a.Desk, deskBackup)
		g.Now = g.Now.Add(time.Minute)
		b.Sync(t)
		a.Sync(t)
		taken := map[int]string{}
		for _, c := range append(first, printed...) {
			code, err := app.Parse(c)
			if err != nil {
				t.Fatal(err)
			}
			taken[code.Serial] = c
		}
		_, again, err := a.Svc.Issue(ctx, app.IssueRequest{Count: 3})
		if err != nil {
			t.Fatalf("desk A, synced after both restores, cannot issue: %v", err)
		}
		for _, c := range again {
			if taken[c.Serial] != "" {
				t.Errorf("desk A (alone in its site) issued serial %d again (%s), printed before as %s", c.Serial, c, taken[c.Serial])
			}
		}
	})
}

// TestHostileUpgradedFirstReleaseDeskSettings: the first release's
// settings --default-operator (the window's clerk) checks the length only;
// a name ending in an invisible direction mark (U+200F, common after a
// Hebrew or Arabic name) or holding a tab is stored. Today's qrdesk on
// that desk once refused every command, 'qrdesk settings' too, as damaged
// settings: the upgraded desk could not scan, sync or be fixed with the
// command it named. It uses the name cleaned ("Dana") and says so until
// the setting is saved again.
func TestHostileUpgradedFirstReleaseDeskSettings(t *testing.T) {
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
