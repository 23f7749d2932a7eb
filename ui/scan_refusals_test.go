package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"

	"qrdesk/app"
)

// TestDisabledAndExpiredSayDoNotHandOver: a disabled or expired label
// tells the clerk not to hand over, in English and Chinese, on a colour of
// its own: not the grey of SIGNED IN, nor another verdict's.
func TestDisabledAndExpiredSayDoNotHandOver(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	_, codes, err := h.svc.Issue(ctx, app.IssueRequest{Count: 4, Expires: "1h"})
	if err != nil {
		t.Fatal(err)
	}
	h.svc.SetDisabled(ctx, codes[0].String(), true, "label torn", "li")
	h.svc.SetDisabled(ctx, codes[2].String(), true, "label torn", "li")
	others := map[string]bool{}
	for _, c := range []any{colorRedeemed, colorUsed, colorRefused, colorInactive, colorIdle} {
		others[colorKey(c)] = true
	}
	for i, lang := range []string{"en", "zh"} {
		want := "do not hand over"
		if lang == "zh" {
			override = chineseTexts(t)
			want = "请勿交付"
		}
		t.Cleanup(func() { override = nil })
		h.scan(t, codes[2*i].String(), fyne.KeyReturn, T("DISABLED"))
		h.clock.Advance(2 * time.Hour)
		h.scan(t, codes[2*i+1].String(), fyne.KeyReturn, T("EXPIRED"))
		h.clock.Advance(-2 * time.Hour)
		for _, v := range []struct {
			title string
			show  func()
		}{
			{"DISABLED", func() {
				h.ui.scan.show(app.Verdict{Outcome: app.OutcomeDisabled, DisabledReason: "label torn"}, nil, nil)
			}},
			{"EXPIRED", func() {
				h.ui.scan.show(app.Verdict{Outcome: app.OutcomeExpired, ExpireAt: h.clock.Now().Unix()}, nil, nil)
			}},
		} {
			var detail string
			var fill any
			fyne.DoAndWait(func() { v.show(); detail, fill = h.ui.scan.detail.Text, h.ui.scan.panel.FillColor })
			if !strings.Contains(strings.ToLower(detail), want) {
				t.Errorf("%s %s says %q, want %q", lang, v.title, detail, want)
			}
			if others[colorKey(fill)] {
				t.Errorf("%s %s is painted %v, a colour another verdict (or SIGNED IN) has", lang, v.title, fill)
			}
		}
	}
}

func colorKey(c any) string { return fmt.Sprint(c) }

// TestLockedDeskAsksForABadge: a desk-mode window nobody is signed in at
// asks for a badge between scans ("SCAN YOUR BADGE", in Chinese too), not
// for a label; once someone signs in it is ready for labels, and asks for a
// badge again after Sign out.
func TestLockedDeskAsksForABadge(t *testing.T) {
	h := newSignInHarness(t, true)
	idle := func() (title, detail string) {
		fyne.DoAndWait(func() { h.ui.scan.idle(); title, detail = h.ui.scan.title.Text, h.ui.scan.detail.Text })
		return
	}
	if title, detail := idle(); title != "SCAN YOUR BADGE" || !strings.Contains(detail, "badge") {
		t.Fatalf("a locked desk says %q / %q between scans, want SCAN YOUR BADGE", title, detail)
	}
	h.scan(t, h.liBadge, fyne.KeyReturn, T("SIGNED IN"))
	if title, _ := idle(); title != "READY" {
		t.Fatalf("with li signed in the desk says %q between scans, want READY", title)
	}
	fyne.DoAndWait(func() { h.ui.env.signIn.set(nil) })
	if title, _ := idle(); title != "SCAN YOUR BADGE" {
		t.Fatalf("after Sign out the desk says %q, want SCAN YOUR BADGE", title)
	}
	override = chineseTexts(t)
	defer func() { override = nil }()
	if title, _ := idle(); title != "请扫描工牌" {
		t.Fatalf("in Chinese a locked desk says %q", title)
	}
	// A window not in desk mode says READY as before.
	plain := newHarness(t)
	override = nil
	var title string
	fyne.DoAndWait(func() { plain.ui.scan.idle(); title = plain.ui.scan.title.Text })
	if title != "READY" {
		t.Fatalf("an ordinary station says %q between scans", title)
	}
}

// TestStationWithOperatorsAsksForABadge: a window not in desk mode at a
// desk with operators, nobody signed in, asks for a badge between scans
// too: a label would only get SIGN IN FIRST (it said READY). A station
// without operators says READY, as TestLockedDeskAsksForABadge checks.
func TestStationWithOperatorsAsksForABadge(t *testing.T) {
	h := newSignInHarness(t, false)
	h.settle()
	idle := func() (title string) {
		fyne.DoAndWait(func() { h.ui.scan.idle(); title = h.ui.scan.title.Text })
		return
	}
	waitFor(t, "the desk's operators known", func() bool { return h.ui.hasStaff })
	if title := idle(); title != "SCAN YOUR BADGE" {
		t.Fatalf("a station with operators and nobody signed in says %q between scans", title)
	}
	h.scan(t, h.liBadge, fyne.KeyReturn, T("SIGNED IN"))
	if title := idle(); title != "READY" {
		t.Fatalf("with li signed in the station says %q", title)
	}
	fyne.DoAndWait(func() { h.ui.env.signIn.set(nil) })
	if title := idle(); title != "SCAN YOUR BADGE" {
		t.Fatalf("after Sign out the station says %q", title)
	}
}

// TestExpiredByACloseSaysSo: a label a close of its day expired has no
// expiry time of its own; the Scan screen says its day was closed, in
// English and Chinese, never "it expired -".
func TestExpiredByACloseSaysSo(t *testing.T) {
	h := newHarness(t)
	for _, tt := range []struct{ lang, want string }{{"en", "when its day was closed"}, {"zh", "已日结"}} {
		if tt.lang == "zh" {
			override = chineseTexts(t)
		}
		t.Cleanup(func() { override = nil })
		var detail string
		fyne.DoAndWait(func() {
			h.ui.scan.show(app.Verdict{Outcome: app.OutcomeExpired}, nil, nil)
			detail = h.ui.scan.detail.Text
		})
		if !strings.Contains(detail, tt.want) || strings.HasSuffix(detail, "-") {
			t.Errorf("%s: a label expired by its day's close says %q, want %q", tt.lang, detail, tt.want)
		}
	}
	if got := (app.Verdict{Outcome: app.OutcomeExpired}).Message(); got != "Expired when its day was closed" {
		t.Errorf("the verdict's message: %q", got)
	}
}
