package multidesk_test

import (
	"context"
	"math"
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
// length only: a Hebrew name ending in U+200F is taken), today's server refuses
// names over 40 characters or with a control character or an invisible
// direction mark with 400. So a label desk A redeemed online is handed
// over again at the old desk (the server was up and knew it used), and
// when qrdesk is upgraded on the old desk its outbox events are refused
// for the same name: the double use never becomes a conflict.
func TestHostileOldDeskOperatorTheServerRefuses(t *testing.T) {
	t.Skip("finding (open, docs/reliability.md): a first-release desk takes the 400 for an operator name the server refuses as server away and hands over alone; no conflict is recorded")
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
// first-release desk Too old and offers to revoke it; its token may also
// be renewed (the new token not yet typed in at the desk), or the server
// restored to before the station was added. The server then answers its
// scans 403 or 401, which that release takes for "away": it hands over a
// label desk A redeemed online a moment before, the server up.
func TestHostileRevokedOldDeskHandsOverAlone(t *testing.T) {
	t.Skip("finding (open, docs/reliability.md): a first-release desk whose token is revoked or renewed takes 401/403 as server away and hands over alone")
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
// after the removal, expires every unused label of the site at the
// server: accepted, not flagged, not in the removed staff's work.
func TestHostileRemovedSupervisorOfflineCloseExpires(t *testing.T) {
	t.Skip("finding (open, docs/reliability.md): an offline close with expiry by a removed supervisor is applied, unflagged")
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
		flagged := centraltest.Count(t, h.DB, `SELECT count(*) FROM events WHERE kind = 'expire' AND (flags & 64) <> 0`)
		work, err := h.DB.RemovedStaffWork(ctx, 0, math.MaxInt64)
		if err != nil {
			t.Fatal(err)
		}
		listed := 0
		for _, w := range work {
			if w.Kind == "expire" {
				listed++
			}
		}
		if expired > 0 && (flagged == 0 || listed == 0) {
			t.Errorf("supervisor wang, removed at the server, closed the day with --expire-unused at desk B offline: the server expired %d of %d labels (%s at desk A: %s), flagged %d expiries, %d in the removed staff's work; a disable by wang is refused and flagged",
				expired, len(codes), codes[0], a.Status(t, codes[0]), flagged, listed)
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
	t.Skip("finding (open, docs/reliability.md): a close made before a site rename is refused by name (CloseSiteRefusal compares site names, not ids)")
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
	t.Skip("finding (open, docs/reliability.md): the clock-skew gauge reads offsets only from offline events")
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
// new record existed, arrives afterwards: the server removes the kim it
// had just added, and kim can work at no desk.
func TestHostileLateRemovalRemovesTheRehired(t *testing.T) {
	t.Skip("finding (open, docs/reliability.md): a late offline removal removes an operator re-added at the server since")
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
	})
}

// TestHostileSerialsAfterBothRestoresOneDeskSite: TestSerialsAfterBothRestores
// with desk A the only desk of its site (a store with one desk). Desk B,
// of another site, follows only its own site's feed and holds no copy of
// A's labels, so no desk tells the restored server A's serials 4-6: A,
// restored with the server, prints them again.
func TestHostileSerialsAfterBothRestoresOneDeskSite(t *testing.T) {
	t.Skip("finding (open, docs/reliability.md): after both restores a desk alone in its site reissues serials (no other desk holds copies)")
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
// that desk refuses every command, 'qrdesk settings' too, with "the
// stored settings are damaged; fix them with 'qrdesk settings'": the
// upgraded desk cannot scan, sync or be fixed with the command it names.
func TestHostileUpgradedFirstReleaseDeskSettings(t *testing.T) {
	t.Skip("finding (open, docs/reliability.md): an upgraded first-release desk whose default operator holds a direction mark or tab refuses every command as damaged settings")
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
}
