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

// TestDeskClockAheadAsksTheServer: a desk whose clock is 2 days ahead
// scans a label valid for 24 more hours by the server's clock. Online the
// server decides: redeemed. Offline, with the offset it measured online,
// the desk judges expiry on the server's clock too: redeemed. Offline with
// no offset it can trust (its clock moved a day since the measurement) it
// refuses it as expired on its own clock but does not store it so: once
// its clock is fixed it redeems the label the server and the other desks
// hold unused. A label past its expiry by the server's clock is still
// refused online.
func TestDeskClockAheadAsksTheServer(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h := centraltest.New(t, dbPath, 0)
		a := h.Desk(t, "Desk A", "A", h.Station(t, "Desk A", "A"))
		b := h.Desk(t, "Desk B", "B", h.Station(t, "Desk B", "B"))
		_, issued, err := a.Svc.Issue(ctx, app.IssueRequest{Count: 5, Expires: "72h"})
		if err != nil {
			t.Fatal(err)
		}
		var codes []string
		for _, c := range issued {
			codes = append(codes, c.String())
		}
		a.Sync(t)
		b.Sync(t)

		// Two days later by the server's clock: 24 hours left. Desk B's
		// clock is 2 days ahead of the server's.
		h.Now = h.Now.Add(48 * time.Hour)
		ahead := 48 * time.Hour
		bNow := func() time.Time { return h.Now.Add(ahead) }
		b.Svc.Now = bNow
		b.DB.UseClock(bNow)

		if v := b.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("online, valid by the server's clock: %s (%s), want redeemed", v.Outcome, v.Reason)
		}

		// Offline, by the offset that answer measured: redeemed.
		remote := b.Svc.Remote
		b.Svc.Remote = nil
		if v := b.Redeem(t, codes[4], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("offline, valid by the measured server's clock: %s (%s), want redeemed", v.Outcome, v.Reason)
		}

		// Offline, the clock a day further ahead since its measurement: the
		// offset is not trusted; refused on the desk's own clock, not
		// stored expired.
		ahead = 73 * time.Hour
		if v := b.Redeem(t, codes[1], "li"); v.Outcome != app.OutcomeExpired {
			t.Fatalf("offline, expired by the desk's clock: %s, want expired", v.Outcome)
		}
		if n := b.Count(t, `SELECT count(*) FROM codes WHERE status = 'expired'`); n != 0 {
			t.Fatalf("%d labels stored expired on the desk's clock alone", n)
		}
		// A label re-enabled offline is not stored expired either.
		if _, err := b.Svc.SetDisabled(ctx, codes[2], true, "torn", "wang"); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Svc.SetDisabled(ctx, codes[2], false, "", "wang"); err != nil {
			t.Fatal(err)
		}
		if n := b.Count(t, `SELECT count(*) FROM codes WHERE status = 'expired'`); n != 0 {
			t.Fatalf("an enabled label was stored expired on the desk's clock")
		}

		// The clock is fixed and the desk online again: the label redeems.
		ahead = 0
		b.Svc.Remote = remote
		b.Sync(t)
		ev := h.Server(t).Event(serverdbtest.Where{Code: codes[4]})
		flags, decided := ev.Flags, ev.DecidedAt
		if flags != 0 || decided != h.Now.Unix() {
			t.Fatalf("the offline redemption by the measured offset: flags %b at %s, want none at the server's time", flags, app.FormatTime(decided))
		}
		if v := b.Redeem(t, codes[1], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("after the clock was fixed: %s (%s), want redeemed", v.Outcome, v.Reason)
		}

		// Past its expiry by the server's clock: refused online, whatever
		// the desk's clock (here 3 days behind).
		h.Now = h.Now.Add(25 * time.Hour)
		ahead = -72 * time.Hour
		if v := b.Redeem(t, codes[3], "li"); v.Outcome != app.OutcomeExpired {
			t.Fatalf("expired by the server's clock: %s, want expired", v.Outcome)
		}
	})
}
