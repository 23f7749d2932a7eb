package ui

import (
	"strings"
	"testing"
	"time"

	"qrdesk/app"
)

// TestClockWarningInTheBanner: the Scan screen's banner says when this
// desk's clock is off the server's, in English and Chinese.
func TestClockWarningInTheBanner(t *testing.T) {
	h := newHarness(t)
	b := h.ui.scan.banner
	now := h.clock.Now().Unix()
	ahead := app.ClockOffset{OffsetMS: -(49 * time.Hour).Milliseconds(), MeasuredAt: now - 10}
	behind := app.ClockOffset{OffsetMS: (5*time.Hour + 20*time.Minute).Milliseconds(), MeasuredAt: now - 10}
	for _, tc := range []struct {
		clock app.ClockOffset
		want  string
	}{
		{ahead, "WARNING: this desk's clock is 2 days ahead of the server: fix the clock"},
		{behind, "WARNING: this desk's clock is 5 hours behind the server: fix the clock"},
		{app.ClockOffset{OffsetMS: 90_000, MeasuredAt: now - 10}, ""},
		{app.ClockOffset{}, ""},
	} {
		got := b.text(app.SyncStatus{LastOK: now - 10, Clock: tc.clock}, nil)
		if tc.want == "" && strings.Contains(got, "clock") {
			t.Fatalf("banner %q warns of a clock within the tolerance", got)
		}
		if tc.want != "" && !strings.Contains(got, tc.want) {
			t.Fatalf("banner %q lacks %q", got, tc.want)
		}
	}

	override = chineseTexts(t)
	defer func() { override = nil }()
	for clock, want := range map[app.ClockOffset]string{
		ahead:  "警告：本柜台的时钟比服务器快 2 天：请校正时钟",
		behind: "警告：本柜台的时钟比服务器慢 5 小时：请校正时钟",
	} {
		if got := b.text(app.SyncStatus{LastOK: now - 10, Clock: clock}, nil); !strings.Contains(got, want) {
			t.Fatalf("banner in Chinese %q lacks %q", got, want)
		}
	}
}
