package multidesk_test

import (
	"strings"
	"testing"
	"time"

	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// TestClockSkewOfAnOnlineDesk: the alert QrdeskDeskClockSkew
// (deploy/prometheus/rules.yml) reads qrdesk_desk_clock_offset_max_seconds,
// made from the offsets events carry. Desk B's clock is a day behind; it
// syncs (measuring the offset) and its clerk issues and redeems online all
// day: the gauge stays 0 and the alert never fires, though the desk knows
// its offset.
func TestClockSkewOfAnOnlineDesk(t *testing.T) {
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
