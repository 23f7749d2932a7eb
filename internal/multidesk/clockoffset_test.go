package multidesk_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/central"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/serverdbtest"
	"qrdesk/internal/testclock"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// Desks whose clocks are wrong, measured against the server's (issue 22,
// "Clocks"): each desk measures its offset on every answer, and its offline
// events carry it, so the server decides them on its own clock.

// TestEveryAnswerCarriesTheServerClock: refusals too, so a desk whose
// token was revoked still learns its clock is off.
func TestEveryAnswerCarriesTheServerClock(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 0)
		for _, path := range []string{"/v1/enrol", "/nowhere"} {
			req, _ := http.NewRequest("POST", h.URL+path, strings.NewReader("{}"))
			resp, err := centraltest.HTTPClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if got := resp.Header.Get(protocol.TimeHeader); got != strconv.FormatInt(h.Now.UnixMilli(), 10) {
				t.Fatalf("%s (status %d): %s %q, want the server's clock %d", path, resp.StatusCode, protocol.TimeHeader, got, h.Now.UnixMilli())
			}
		}
	})
}

// TestDeskMeasuresItsClock: a desk 2 days ahead learns it at its sync and
// says so; once its clock is fixed and it syncs again, it does not.
func TestDeskMeasuresItsClock(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 0)
		b := h.Desk(t, "Desk B", "B", h.Station(t, "Desk B", "B"))
		off := 48 * time.Hour
		b.Skew(h, &off)
		st, err := b.Svc.Sync(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if st.Clock.OffsetMS != -off.Milliseconds() || st.Clock.MeasuredAt != h.Now.Add(off).Unix() {
			t.Fatalf("measured %+v, want offset %d ms at the desk's %d", st.Clock, -off.Milliseconds(), h.Now.Add(off).Unix())
		}
		if want := "this desk's clock is 2 days ahead of the server: fix the clock"; st.Clock.Warning() != want {
			t.Fatalf("warning %q, want %q", st.Clock.Warning(), want)
		}
		// An online scan measures it too: fixed to 30 minutes behind.
		off = -30 * time.Minute
		codes := b.Issue(t, 1)
		b.Sync(t)
		off = -31 * time.Minute
		if v := b.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("online: %s", v.Outcome)
		}
		c, err := b.Svc.ClockOffset(context.Background())
		if err != nil || c.OffsetMS != (31*time.Minute).Milliseconds() || c.Warning() != "this desk's clock is 31 minutes behind the server: fix the clock" {
			t.Fatalf("after an online scan: %+v %q %v", c, c.Warning(), err)
		}
		off = time.Second
		b.Sync(t)
		if c, _ := b.Svc.ClockOffset(context.Background()); c.Off() || c.Warning() != "" {
			t.Fatalf("a clock 1 s off warns: %+v %q", c, c.Warning())
		}
	})
}

// TestSlowDeskOfflineAfterExpiryIsFlagged (issue 22, item 1): a desk 30
// minutes slow scans offline 72h labels that expired 10 minutes earlier by
// the server's clock. With an offset it measured an hour before, the desk
// judges expiry on the server's clock: expired (not green), and not stored
// expired. With one measured 25 hours before, it cannot trust it and
// decides on its own clock (redeemed); the server puts the redemption on
// its own clock by that offset: past expiry, flagged (after expiry, clock
// not verified) and listed, at the corrected time.
func TestSlowDeskOfflineAfterExpiryIsFlagged(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h := centraltest.New(t, dbPath, 0)
		a := h.Desk(t, "Desk A", "A", h.Station(t, "Desk A", "A"))
		b := h.Desk(t, "Desk B", "B", h.Station(t, "Desk B", "B"))
		_, issued, err := a.Svc.Issue(ctx, app.IssueRequest{Count: 2, Expires: "72h"})
		if err != nil {
			t.Fatal(err)
		}
		expiry := h.Now.Add(72 * time.Hour)
		a.Sync(t)

		off := -30 * time.Minute
		b.Skew(h, &off)
		h.Now = expiry.Add(-25 * time.Hour)
		b.Sync(t) // measures the offset: 30 minutes behind

		// 25 hours later, offline: the offset is too old to trust.
		h.Now = expiry.Add(10 * time.Minute)
		remote := b.Svc.Remote
		b.Svc.Remote = nil
		stale := issued[0].String()
		if v := b.Redeem(t, stale, "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("offline, an offset 25 hours old: %s, want redeemed on the desk's clock", v.Outcome)
		}
		b.Svc.Remote = remote
		h.Now = h.Now.Add(time.Minute)
		b.Sync(t) // uploads it, and measures the offset again

		ev := h.Server(t).Event(serverdbtest.Where{Code: stale, Kind: "redeem"})
		flags, decided := ev.Flags, ev.DecidedAt
		if flags != central.FlagAfterExpiry|central.FlagClockUnverified {
			t.Fatalf("flags %b, want after expiry and clock not verified", flags)
		}
		if want := expiry.Add(10 * time.Minute).Unix(); decided != want {
			t.Fatalf("decided at %s, want the corrected %s", app.FormatTime(decided), app.FormatTime(want))
		}
		day := time.Date(h.Now.Year(), h.Now.Month(), h.Now.Day(), 0, 0, 0, 0, time.Local).Unix()
		listed, err := h.DB.FlaggedEvents(ctx, day, day+86400)
		if err != nil || len(listed) != 1 || listed[0].Code != stale || !strings.Contains(listed[0].Flag, "after its expiry") {
			t.Fatalf("flagged events %+v %v, want the redemption after expiry", listed, err)
		}

		// Offline with the fresh offset: expired on the server's clock.
		b.Svc.Remote = nil
		h.Now = h.Now.Add(time.Minute)
		if v := b.Redeem(t, issued[1].String(), "li"); v.Outcome != app.OutcomeExpired {
			t.Fatalf("offline, a fresh offset: %s, want expired by the server's clock", v.Outcome)
		}
		if n := b.Count(t, `SELECT count(*) FROM codes WHERE status = 'expired'`); n != 0 {
			t.Fatalf("%d labels stored expired by the desk", n)
		}
	})
}

// TestServerCorrectsOfflineTime: the server puts an offline event on its
// own clock by the offset the event carries: a redemption "10 minutes
// before" expiry by a desk 30 minutes slow is 20 minutes after it, flagged
// after expiry only (the offset was fresh); the same event with no offset
// (an older desk) keeps the desk's time.
func TestServerCorrectsOfflineTime(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 2)
		b := h.Station(t, "Desk 2", "B")
		a := h.Station(t, "Desk 1", "A")
		expiry := h.Now.Add(-20 * time.Minute).Unix()
		var res struct{ Added int }
		h.Call(t, "POST", "/v1/batches", a, h.Ring, map[string]any{"codes": []map[string]any{
			{"code": h.Codes[0], "expire_at": expiry, "created_at": expiry - 3600},
			{"code": h.Codes[1], "expire_at": expiry, "created_at": expiry - 3600}}}, &res)
		slow := (30 * time.Minute).Milliseconds()
		at := expiry - 10*60
		for i, ev := range []protocol.Event{
			{EventID: "corrected-offline-1", Kind: "redeem", Code: h.Codes[0], Operator: "wang", At: at, Offline: true, ClockOffsetMS: &slow, ClockAge: 600},
			{EventID: "older-desk-offline-1", Kind: "redeem", Code: h.Codes[1], Operator: "wang", At: at, Offline: true},
		} {
			var out struct{ Results []protocol.Result }
			if st := h.Call(t, "POST", "/v1/events", b, h.Ring, map[string]any{"events": []protocol.Event{ev}}, &out); st != 200 || len(out.Results) != 1 {
				t.Fatalf("event %d: status %d %+v", i, st, out)
			}
		}
		for _, tc := range []struct {
			code    string
			flags   central.Flags
			decided int64
		}{{h.Codes[0], central.FlagAfterExpiry, expiry + 20*60}, {h.Codes[1], 0, at}} {
			ev := h.Server(t).Event(serverdbtest.Where{Code: tc.code})
			flags, decided := ev.Flags, ev.DecidedAt
			if flags != tc.flags || decided != tc.decided {
				t.Fatalf("%s: flags %b at %d, want %b at %d", tc.code, flags, decided, tc.flags, tc.decided)
			}
		}
	})
}

// TestSlowDeskConflictFiledOnTheRightDay (issue 22, item 1): just after
// midnight Desk A redeems a label online; Desk B, 5 hours slow (yesterday
// by its clock), redeems it offline a minute later. A's redemption stays
// the one of record, and the conflict is filed on today, not yesterday.
func TestSlowDeskConflictFiledOnTheRightDay(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h := centraltest.New(t, dbPath, 0)
		a := h.Desk(t, "Desk A", "A", h.Station(t, "Desk A", "A"))
		b := h.Desk(t, "Desk B", "B", h.Station(t, "Desk B", "B"))
		codes := a.Issue(t, 1)
		a.Sync(t)
		y, m, d := testclock.Day().Date()
		tomorrow := time.Date(y, m, d+1, 0, 0, 0, 0, time.Local)
		off := -5 * time.Hour
		b.Skew(h, &off)
		h.Now = tomorrow.Add(50 * time.Minute)
		b.Sync(t)

		h.Now = tomorrow.Add(time.Hour)
		if v := a.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("online at A: %s", v.Outcome)
		}
		remote := b.Svc.Remote
		b.Svc.Remote = nil
		h.Now = h.Now.Add(time.Minute)
		b.Redeem(t, codes[0], "wang")
		b.Svc.Remote = remote
		b.Sync(t)

		l := h.Server(t).Label(codes[0])
		station, usedAt := l.UsedStation, l.UsedAt
		if station != "Desk A" || usedAt != tomorrow.Add(time.Hour).Unix() {
			t.Fatalf("redemption of record at %s %s, want Desk A's online one", station, app.FormatTime(usedAt))
		}
		today, err := h.DB.Conflicts(ctx, tomorrow.Unix(), tomorrow.AddDate(0, 0, 1).Unix())
		if err != nil || len(today) != 1 || today[0].FirstStation != "Desk A" || today[0].SecondAt != tomorrow.Add(61*time.Minute).Unix() {
			t.Fatalf("today's conflicts %+v %v, want one with Desk A first and B's corrected time", today, err)
		}
		if yesterday, _ := h.DB.Conflicts(ctx, tomorrow.AddDate(0, 0, -1).Unix(), tomorrow.Unix()); len(yesterday) != 0 {
			t.Fatalf("conflicts filed on yesterday: %+v", yesterday)
		}
	})
}

// TestClockSetWhileOfflineFollowed: a desk 25 minutes slow measures its
// offset at a sync; the network goes down, the clerk fixes the clock, and
// the desk redeems offline. The desk saw its clock set (against the
// monotonic clock) and moved its offset along, so the server decides the
// redemption at its own time, not 25 minutes ahead of it (flagged, at the
// server's receive time). The desk's clock here is the real one, skewed:
// a pinned clock cannot be told from one being set.
func TestClockSetWhileOfflineFollowed(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 0)
		a := h.Desk(t, "Desk A", "A", h.Station(t, "Desk A", "A"))
		b := h.Desk(t, "Desk B", "B", h.Station(t, "Desk B", "B"))
		codes := a.Issue(t, 1)
		a.Sync(t)
		var skew atomic.Int64
		skew.Store(int64(-25 * time.Minute))
		bNow := func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }
		b.Svc.Now = bNow
		b.DB.UseClock(bNow)
		b.Sync(t)

		remote := b.Svc.Remote
		b.Svc.Remote = nil
		skew.Store(0) // the clerk fixes the clock
		if v := b.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("offline: %s", v.Outcome)
		}
		b.Svc.Remote = remote
		b.Sync(t)
		ev := h.Server(t).Event(serverdbtest.Where{Code: codes[0]})
		flags, decided := ev.Flags, ev.DecidedAt
		if flags.Has(central.FlagsClock) || decided > h.Now.Unix()+central.FutureTolerance {
			t.Fatalf("flags %b, decided at %s (server now %s): the offset did not follow the clock", flags, app.FormatTime(decided), app.FormatTime(h.Now.Unix()))
		}
	})
}
