package multidesk_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testclock"
	"qrdesk/internal/testpg"
)

// A close's expiry is a request the server decides: only labels of the
// closing desk's site, of a day that has begun on the server's clock, are
// expired; every other expiry is answered not_expired with the reason, and
// the closing desk's copy follows the server.

// issueFor issues n labels for date (YYYY-MM-DD) at the desk.
func issueFor(t *testing.T, d *centraltest.Desk, n int, date string) []string {
	t.Helper()
	_, codes, err := d.Svc.Issue(context.Background(), app.IssueRequest{Count: n, Date: date})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(codes))
	for i, c := range codes {
		out[i] = c.String()
	}
	return out
}

// serverStatus is a label's status at the server (h.Server(t).Status; the
// hostile s35 scenarios still say it so).
func serverStatus(t *testing.T, h *centraltest.Harness, code string) string {
	t.Helper()
	return h.Server(t).Status(code)
}

// outboxResult is the server's answer to the desk's expire event of code.
func outboxResult(t *testing.T, d *centraltest.Desk, code string) string {
	t.Helper()
	var res string
	if err := d.DB.SQL().QueryRow(`SELECT result FROM outbox WHERE kind = 'expire' AND code = ?`, code).Scan(&res); err != nil {
		t.Fatalf("the expire event of %s: %v", code, err)
	}
	return res
}

// Desk A issues today's labels and tomorrow's; desk B's day is already
// tomorrow: its clock is a day ahead, or its clock is right and its time
// zone far ahead (it is 20:00 at the server, 06:00 tomorrow at desk B).
// B closes "its" day with --expire-unused and syncs. The server keeps
// tomorrow's labels unused (the answer says the day has not begun at the
// server), B's copy follows, desk A never hears of an expiry, and the
// next day a label of it is redeemed green.
func TestCloseDayAheadLeavesTomorrowsLabels(t *testing.T) {
	t.Parallel()
	ahead := map[string]func(h *centraltest.Harness, d *centraltest.Desk){
		"clock a day ahead": func(h *centraltest.Harness, d *centraltest.Desk) {
			off := 24 * time.Hour
			d.Skew(h, &off)
		},
		"time zone far ahead": func(h *centraltest.Harness, d *centraltest.Desk) {
			_, local := h.Now.Zone()
			zone := time.FixedZone("far ahead", local+10*3600)
			now := func() time.Time { return h.Now.In(zone) }
			d.Svc.Now = now
			d.DB.UseClock(now)
		},
	}
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		for name, setAhead := range ahead {
			t.Run(name, func(t *testing.T) {
				h, a, b, today := centraltest.TwoDesks(t, dbPath, 2)
				h.Now = testclock.Day().Add(20 * time.Hour)
				tomorrow := issueFor(t, a, 3, testclock.Date(1))
				a.Sync(t)
				b.Sync(t)
				setAhead(h, b)
				if got := app.FormatDate(b.Svc.Now()); got != testclock.Date(1) {
					t.Fatalf("desk B's day is %s, want %s", got, testclock.Date(1))
				}
				if dc := b.CloseDay(t, true); dc.ExpiredNow != 3 {
					t.Fatalf("close-day at desk B expired %d labels there, want tomorrow's 3", dc.ExpiredNow)
				}
				b.Sync(t)
				a.Sync(t)
				for _, code := range append(tomorrow, today...) {
					if got := h.Server(t).Status(code); got != "unused" {
						t.Errorf("server: %s is %s after a close of tomorrow, want unused", code, got)
					}
					for n, d := range map[string]*centraltest.Desk{"A": a, "B": b} {
						if got := d.Status(t, code); got != app.StatusUnused {
							t.Errorf("desk %s: %s is %s, want unused as at the server", n, code, got)
						}
					}
				}
				if res := outboxResult(t, b, tomorrow[0]); !strings.Contains(res, "not_expired") || !strings.Contains(res, "has not begun at the server") {
					t.Errorf("the server's answer to B's expiry: %s, want not_expired, the day has not begun", res)
				}
				if st, _ := b.DB.SyncState(context.Background()); st.Waiting != 0 || st.Rejected != 0 {
					t.Errorf("desk B's outbox %+v, want everything sent and nothing rejected", st)
				}
				h.Now = testclock.Day().AddDate(0, 0, 1).Add(10 * time.Hour)
				if v := a.Redeem(t, tomorrow[0], "li"); v.Outcome != app.OutcomeRedeemed {
					t.Errorf("the next day, desk A redeeming %s online: %+v, want redeemed", tomorrow[0], v)
				}
			})
		}
	})
}

// A desk of site North holds a label of main: it redeemed it online and
// its supervisor undid that. North 1 closes its day with --expire-unused
// and syncs: its own label expires at the server, main's does not (the
// answer names main's site), North 1's copy of it follows the server, and
// main's desk redeems it online, green.
func TestCloseDayLeavesAnotherSitesLabels(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 0)
		m := h.Desk(t, "Main 1", "A", h.Station(t, "Main 1", "A"))
		n := siteDesk(t, h, "North", "North 1", "N")
		mainLabels := m.Issue(t, 2)
		m.Sync(t)
		own := n.Issue(t, 1)
		n.Sync(t)
		if v := n.Redeem(t, mainLabels[0], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("North 1 redeeming main's label online: %+v", v)
		}
		h.Now = h.Now.Add(time.Minute)
		n.Undo(t, mainLabels[0], "wrong parcel")
		n.Sync(t)
		h.Now = h.Now.Add(time.Minute)
		if dc := n.CloseDay(t, true); dc.ExpiredNow != 2 {
			t.Fatalf("close-day at North 1 expired %d labels there, want 2 (its own, main's it holds)", dc.ExpiredNow)
		}
		n.Sync(t)
		m.Sync(t)
		if got := h.Server(t).Status(own[0]); got != "expired" {
			t.Errorf("server: North's own label %s is %s after North's close, want expired", own[0], got)
		}
		for _, code := range mainLabels {
			if got := h.Server(t).Status(code); got != "unused" {
				t.Errorf("server: main's label %s is %s after North's close, want unused", code, got)
			}
			if got := m.Status(t, code); got != app.StatusUnused {
				t.Errorf("Main 1: %s is %s, want unused", code, got)
			}
		}
		if got := n.Status(t, mainLabels[0]); got != app.StatusUnused {
			t.Errorf("North 1's copy of main's %s is %s, want unused as at the server", mainLabels[0], got)
		}
		if res := outboxResult(t, n, mainLabels[0]); !strings.Contains(res, "not_expired") || !strings.Contains(res, "label of site main") {
			t.Errorf("the server's answer to North's expiry: %s, want not_expired naming site main", res)
		}
		h.Now = h.Now.Add(time.Minute)
		if v := m.Redeem(t, mainLabels[0], "wang"); v.Outcome != app.OutcomeRedeemed {
			t.Errorf("Main 1 redeeming %s online after North's close: %+v, want redeemed", mainLabels[0], v)
		}
	})
}

// Desk A closes the day expiring its unused labels and syncs. Desk B,
// which has not heard, redeems one offline; its supervisor undoes it, and
// B syncs. The undo takes back the redemption, not the close: the label
// goes back to expired at the server and at both desks, and an online
// scan of it is refused as expired.
func TestUndoKeepsClosedDayExpired(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 2)
		h.Now = h.Now.Add(time.Minute)
		if dc := a.CloseDay(t, true); dc.ExpiredNow != 2 {
			t.Fatalf("close-day expired %d labels, want 2", dc.ExpiredNow)
		}
		a.Sync(t)
		h.Now = h.Now.Add(time.Minute)
		b.Offline(func() {
			if v := b.Redeem(t, codes[0], "wang"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("desk B offline, not told of the close: %+v", v)
			}
			h.Now = h.Now.Add(time.Minute)
			b.Undo(t, codes[0], "wrong parcel")
		})
		b.Sync(t)
		a.Sync(t)
		if got := h.Server(t).Status(codes[0]); got != "expired" {
			t.Errorf("server: %s is %s after the undo, want expired (its day was closed)", codes[0], got)
		}
		for n, d := range map[string]*centraltest.Desk{"A": a, "B": b} {
			if got := d.Status(t, codes[0]); got != app.StatusExpired {
				t.Errorf("desk %s: %s is %s, want expired as at the server", n, codes[0], got)
			}
		}
		h.Now = h.Now.Add(time.Minute)
		if v := a.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeExpired {
			t.Errorf("desk A online after the undo: %+v, want refused as expired", v)
		}
	})
}

// Desk A issues a label for tomorrow and replaces it (torn). The new label
// carries tomorrow's date, as the label it replaces; today's close with
// --expire-unused leaves it unused at the desk and the server.
func TestReplacementKeepsTheLabelsDay(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, _, _ := centraltest.TwoDesks(t, dbPath, 1)
		x := issueFor(t, a, 1, testclock.Date(1))[0]
		a.Sync(t)
		y := a.Replace(t, x, "li")
		c, err := app.Parse(y)
		if err != nil {
			t.Fatal(err)
		}
		if c.LabelDate() != testclock.Date(1) {
			t.Errorf("the replacement %s of tomorrow's %s carries %s, want %s", y, x, c.LabelDate(), testclock.Date(1))
		}
		a.Sync(t)
		h.Now = h.Now.Add(time.Minute)
		a.CloseDay(t, true)
		a.Sync(t)
		if got := h.Server(t).Status(y); got != "unused" {
			t.Errorf("server: the replacement %s is %s after today's close, want unused", y, got)
		}
		if got := a.Status(t, y); got != app.StatusUnused {
			t.Errorf("desk A: the replacement %s is %s after today's close, want unused", y, got)
		}
	})
}

// Desk Main 2 holds main's labels and is moved to site North; before its
// next sync it closes its day with --expire-unused (its copy of main's
// labels expires there). At the sync the server keeps main's labels
// unused: they are not North's to close. Main 1 redeems one online, green.
func TestCloseDayOfMovedDeskLeavesOldSitesLabels(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, m1, m2, codes := centraltest.TwoDesks(t, dbPath, 2)
		if err := h.DB.AddSite(context.Background(), "North", 1); err != nil {
			t.Fatal(err)
		}
		if err := h.DB.SetStationSite(context.Background(), "Desk B", "North"); err != nil {
			t.Fatal(err)
		}
		h.Now = h.Now.Add(time.Minute)
		if dc := m2.CloseDay(t, true); dc.ExpiredNow != 2 {
			t.Fatalf("close-day at the moved desk expired %d of main's labels there, want 2", dc.ExpiredNow)
		}
		m2.Sync(t)
		m1.Sync(t)
		for _, code := range codes {
			if got := h.Server(t).Status(code); got != "unused" {
				t.Errorf("server: main's label %s is %s after the moved desk's close, want unused", code, got)
			}
			if got := m1.Status(t, code); got != app.StatusUnused {
				t.Errorf("Desk A: %s is %s, want unused", code, got)
			}
		}
		h.Now = h.Now.Add(time.Minute)
		if v := m1.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Errorf("Desk A redeeming %s online after the moved desk's close: %+v, want redeemed", codes[0], v)
		}
	})
}
