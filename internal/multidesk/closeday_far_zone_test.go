package multidesk_test

import (
	"strings"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// Desk A works in the server's zone; desk B, same site, in
// Pacific/Kiritimati (its clock is right, its zone 14 h east of UTC). At
// 07:30 UTC desk A issues today's labels for the afternoon's customers.
// Desk B's supervisor closes B's day at its 21:30 with --expire-unused,
// the same date. Expected: desk A's labels, whose day has 16 hours to go
// where they were issued, stay usable (or the close says whose labels it
// expires). The server took the expiry (the date has begun at the server)
// and desk A refused its own customer at 08:00: "Expired at -". Now the
// server takes a close's expiry only from a desk not ahead of another
// desk of its site (central.CloseZoneRefusal): desk B's is answered
// not_expired with the reason, and its copies follow the server.
func TestCloseOfAFarEastDeskExpiresTheSitesMorning(t *testing.T) {
	t.Parallel()
	far, err := time.LoadLocation("Pacific/Kiritimati")
	if err != nil {
		t.Skip("no tz data:", err)
	}
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 0)
		a := h.Desk(t, "Desk A", "A", h.Station(t, "Desk A", "A"))
		b := h.Desk(t, "Desk B", "B", h.Station(t, "Desk B", "B"))
		morning := time.Date(2026, 12, 5, 7, 30, 0, 0, time.UTC)
		h.Now = morning
		now := func() time.Time { return h.Now.In(far) }
		b.Svc.Now = now
		b.DB.UseClock(now)
		aDay := app.FormatDate(h.Now.In(time.Local))
		if aDay != app.FormatDate(now()) {
			t.Skip("desk A's day (the machine's zone) is not desk B's: premise does not hold here")
		}
		afternoon := a.Issue(t, 2)
		a.Sync(t)
		b.Sync(t)
		b.CloseDay(t, true)
		b.Sync(t)
		a.Sync(t)
		h.Now = morning.Add(30 * time.Minute)
		v := a.Redeem(t, afternoon[0], "li")
		if v.Outcome != app.OutcomeRedeemed {
			t.Errorf("desk B (Pacific/Kiritimati) closed %s at its 21:30 (07:30 UTC) and expired desk A's labels issued that morning for the afternoon; desk A at 08:00: %q (reason %q)", aDay, v.Message(), v.Reason)
		}
		if st := b.Status(t, afternoon[1]); st != app.StatusUnused {
			t.Errorf("desk B's copy of desk A's other afternoon label after its close: %s, want unused (the server's)", st)
		}
		if n := b.Count(t, `SELECT count(*) FROM outbox WHERE kind = 'expire' AND result LIKE '%ahead of Desk A of its site%'`); n == 0 {
			t.Errorf("desk B's expiries were not answered with the reason (ahead of Desk A of its site)")
		}
		if strings.HasSuffix(v.Message(), " -") {
			t.Errorf("the refusal names no time: %q", v.Message())
		}
	})
}
