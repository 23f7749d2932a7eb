package multidesk_test

import (
	"context"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/serverdbtest"
	"qrdesk/internal/testpg"
)

// Every desk command that stamps a time does it on the desk's corrected
// clock (app.Service.ClockNow): its own clock put on the server's by the
// offset it measured.

// TestIssueOnTheServersClock: desk A's clock is 3 hours behind the
// server's (measured at its sync). It issues 90-minute labels: they must
// expire 90 minutes from now on the server's clock, not 90 minutes after a
// time 3 hours gone (the server held them expired before they were
// printed; desk B, online, was refused them). Desk C's clock is 6 hours
// ahead: its labels must not look issued 6 hours from now, or an honest
// desk B redeeming one offline is flagged "desk clock behind", decided at
// its upload, and its redemption, the earlier one, loses the record to a
// later online one at desk A.
func TestIssueOnTheServersClock(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h := centraltest.New(t, dbPath, 0)
		a := h.Desk(t, "Desk A", "A", h.Station(t, "Desk A", "A"))
		b := h.Desk(t, "Desk B", "B", h.Station(t, "Desk B", "B"))
		c := h.Desk(t, "Desk C", "C", h.Station(t, "Desk C", "C"))
		behind, ahead := -3*time.Hour, 6*time.Hour
		a.Skew(h, &behind)
		c.Skew(h, &ahead)
		a.Sync(t) // measures: 3 hours behind
		c.Sync(t) // measures: 6 hours ahead

		_, short, err := a.Svc.Issue(ctx, app.IssueRequest{Count: 1, Expires: "90m"})
		if err != nil {
			t.Fatal(err)
		}
		if want, got := h.Now.Add(90*time.Minute).Unix(), stamp(t, a, "expire_at", short[0].String()); got != want {
			t.Fatalf("a 90-minute label of a desk 3 hours behind expires at %s, want %s (90 minutes on the server's clock)",
				app.FormatTime(got), app.FormatTime(want))
		}
		a.Sync(t)
		b.Sync(t)
		h.Now = h.Now.Add(30 * time.Minute)
		if v := b.Redeem(t, short[0].String(), "wang"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("online, 30 minutes into a 90-minute label: %s (%s), want redeemed", v.Outcome, v.Reason)
		}

		_, fast, err := c.Svc.Issue(ctx, app.IssueRequest{Count: 1})
		if err != nil {
			t.Fatal(err)
		}
		if got := stamp(t, c, "created_at", fast[0].String()); got != h.Now.Unix() {
			t.Fatalf("a label of a desk 6 hours ahead was issued at %s, want %s (the server's clock)",
				app.FormatTime(got), app.FormatTime(h.Now.Unix()))
		}
		c.Sync(t)
		b.Sync(t)
		a.Sync(t)
		label := fast[0].String()
		h.Now = h.Now.Add(time.Minute)
		redeemedAt := h.Now.Unix()
		b.Offline(func() {
			if v := b.Redeem(t, label, "wang"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("desk B offline: %s (%s)", v.Outcome, v.Reason)
			}
		})
		h.Now = h.Now.Add(time.Hour)
		if v := a.Redeem(t, label, "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A online an hour later: %s (%s)", v.Outcome, v.Reason)
		}
		h.Now = h.Now.Add(time.Hour)
		b.Sync(t)
		ev := h.Server(t).Event(serverdbtest.Where{Code: label, Station: "Desk B"})
		flags, decided := ev.Flags, ev.DecidedAt
		if flags != 0 || decided != redeemedAt {
			t.Errorf("desk B's honest offline redemption: flags %b decided at %s, want none at %s", flags, app.FormatTime(decided), app.FormatTime(redeemedAt))
		}
		l := h.Server(t).Label(label)
		station, usedAt := l.UsedStation, l.UsedAt
		if station != "Desk B" || usedAt != redeemedAt {
			t.Errorf("redemption of record %s at %s, want desk B's, the earlier, at %s", station, app.FormatTime(usedAt), app.FormatTime(redeemedAt))
		}
	})
}

// stamp is a time column of code in the desk's database.
func stamp(t *testing.T, d *centraltest.Desk, column, code string) int64 {
	t.Helper()
	var at int64
	if err := d.DB.SQL().QueryRow(`SELECT `+column+` FROM codes WHERE code = ?`, code).Scan(&at); err != nil {
		t.Fatal(err)
	}
	return at
}

// TestReportAfterAClockAheadSync: desk A syncs once with its clock 3 hours
// ahead, then its clock is fixed. It refuses a forged scan; its next
// report must reach the dashboard (the server kept the report of the
// clock 3 hours ahead as the latest and dropped every honest one for 3
// hours: 0 print jobs, 0 forged scans). An older desk, which sends its
// clock's reading, must not lose its honest reports either.
func TestReportAfterAClockAheadSync(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h := centraltest.New(t, dbPath, 0)
		a := h.Desk(t, "Desk A", "A", h.Station(t, "Desk A", "A"))
		off := 3 * time.Hour
		a.Skew(h, &off)
		a.Issue(t, 1)
		a.Sync(t)

		off = 0
		h.Now = h.Now.Add(time.Minute)
		if v := a.Redeem(t, "QRD-FORGED-NOTACODE", "li"); v.Outcome.Accepted() {
			t.Fatalf("a forged scan: %s", v.Outcome)
		}
		a.Sync(t)
		reports, err := h.DB.DeskStatuses(ctx, app.FormatDate(h.Now))
		if err != nil || len(reports) != 1 {
			t.Fatalf("reports %+v %v", reports, err)
		}
		if r := reports[0]; r.Refusals().Forged != 1 || r.At > h.Now.Unix() {
			t.Fatalf("after the clock was fixed the dashboard has %+v at %s, want 1 forged scan, at no later than the server's %s",
				r.Refusals(), app.FormatTime(r.At), app.FormatTime(h.Now.Unix()))
		}

		// An older desk sends its clock's time as it reads: 3 hours ahead,
		// then, fixed, a print job. The server keeps a report at no later
		// than it received it, so the honest one is not dropped.
		old := h.Station(t, "Old desk", "O")
		for i, r := range []app.DeskReport{h.Report(0, 0, 0, 0, h.Now.Add(3*time.Hour).Unix()), h.Report(0, 1, 5, 0, h.Now.Add(time.Minute).Unix())} {
			if i == 1 {
				h.Now = h.Now.Add(2 * time.Minute)
			}
			if st := h.Call(t, "POST", "/v1/status", old, h.Ring, r, nil); st != 200 {
				t.Fatalf("report %d: %d", i, st)
			}
		}
		reports, err = h.DB.DeskStatuses(ctx, app.FormatDate(h.Now))
		if err != nil || len(reports) != 2 || reports[1].Station != "Old desk" || reports[1].PrintJobs != 1 {
			t.Fatalf("an older desk's honest report after one 3 hours ahead: %+v %v, want its print job", reports, err)
		}
	})
}

// TestExpireOnTheServersClock: 'qrdesk expire' at desk A, whose clock is
// 3 days ahead (measured), must not mark here labels with a day left on
// the server's clock. A label this desk stored expired while its expiry is
// still to come (an expire run on the clock before it was ever measured)
// is, online, the server's to decide: redeemed, not "expired at" a time
// still to come.
func TestExpireOnTheServersClock(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h := centraltest.New(t, dbPath, 0)
		a := h.Desk(t, "Desk A", "A", h.Station(t, "Desk A", "A"))
		_, issued, err := a.Svc.Issue(ctx, app.IssueRequest{Count: 2, Expires: "48h"})
		if err != nil {
			t.Fatal(err)
		}
		a.Sync(t)
		h.Now = h.Now.Add(24 * time.Hour)

		// Never measured (no server, a clock 3 days ahead): it expires both.
		off := 72 * time.Hour
		a.Skew(h, &off)
		remote := a.Svc.Remote
		a.Svc.Remote = nil
		a.Svc.Store.SetClockOffset(ctx, app.ClockOffset{}) // never measured
		if n, err := a.Svc.Expire(ctx); err != nil || n != 2 {
			t.Fatalf("expire on an unmeasured clock 3 days ahead: %d %v", n, err)
		}
		a.Svc.Remote = remote
		a.DB.SQL().Exec(`UPDATE codes SET status = 'unused' WHERE code = ?`, issued[1].String())

		// Measured: expire judges on the server's clock, a day left.
		a.Sync(t)
		if n, err := a.Svc.Expire(ctx); err != nil || n != 0 {
			t.Fatalf("expire on a desk 3 days ahead (measured): %d labels expired %v, want none (a day left on the server's clock)", n, err)
		}
		if st := a.Status(t, issued[1].String()); st != app.StatusUnused {
			t.Fatalf("label with a day left: %s here, want unused", st)
		}

		// Clock fixed, online: the label stored expired is asked about.
		off = 0
		if v := a.Redeem(t, issued[0].String(), "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("online, a label stored expired with a day left on the server's clock: %s (%s), want redeemed by the server", v.Outcome, v.Reason)
		}
	})
}
