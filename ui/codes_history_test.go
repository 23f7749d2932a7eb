package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
)

// TestCodesHistoryInClerksWords: a label's history on the Codes screen
// names what happened as a clerk says it, in English and Chinese:
// "Redeemed", "Scanned twice", "Refused: Already used", "Disabled",
// "Enabled", never the database's "just_scanned" or "already_used".
func TestCodesHistoryInClerksWords(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	codes := h.issue(t, 2)
	h.svc.RedeemScan(ctx, codes[0], "li", false)
	h.svc.RedeemScan(ctx, codes[0], "li", true) // at once, the same label again
	h.clock.Advance(time.Hour)
	h.svc.RedeemScan(ctx, codes[0], "li", false)
	h.svc.SetDisabled(ctx, codes[1], true, "torn", "li")
	h.svc.SetDisabled(ctx, codes[1], false, "", "li")

	history := func(code string) string {
		s := codesDetail(t, h, code)
		var text string
		fyne.DoAndWait(func() { text = s.history.Text })
		return text
	}
	used, toggled := history(codes[0]), history(codes[1])
	for _, want := range []string{"Redeemed", "Scanned twice", "Refused: Already used"} {
		if !strings.Contains(used, want) {
			t.Errorf("the history of a used label lacks %q:\n%s", want, used)
		}
	}
	for _, want := range []string{"Disabled", "Enabled", "torn"} {
		if !strings.Contains(toggled, want) {
			t.Errorf("the history of a label disabled and enabled lacks %q:\n%s", want, toggled)
		}
	}
	for _, raw := range []string{"just_scanned", "already_used", "redeemed", "disable ", "enable "} {
		if strings.Contains(used+toggled, raw) {
			t.Errorf("the history shows the database's %q:\n%s%s", raw, used, toggled)
		}
	}
	override = chineseTexts(t)
	defer func() { override = nil }()
	if zh := history(codes[0]); !strings.Contains(zh, "重复扫码") || !strings.Contains(zh, "拒绝：已使用") || !strings.Contains(zh, "已核销") {
		t.Errorf("the history in Chinese:\n%s", zh)
	}
	if got := historyKind("some_new_kind"); got != "some new kind" {
		t.Errorf("a kind a newer release wrote is shown as %q", got)
	}
}
