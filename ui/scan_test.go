package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"

	"qrdesk/app"
)

func TestScanResultNamesTheLabel(t *testing.T) {
	h := newHarness(t)
	_, codes, err := h.svc.Issue(context.Background(), app.IssueRequest{Count: 8, Ref: "ORDER-9"})
	if err != nil {
		t.Fatal(err)
	}
	code := codes[6].String() // serial 7
	h.scan(t, code, fyne.KeyReturn, "REDEEMED")
	h.settle()
	if got := h.ui.scan.label.Text; !strings.Contains(got, "A0007") || !strings.Contains(got, "ORDER-9") {
		t.Fatalf("the result names the label as %q, want its serial A0007 and ref ORDER-9", got)
	}
	// The scanner reads twice: the repeat is blue, neither the green of a
	// redemption nor the amber of ALREADY USED (stop).
	h.scan(t, code, fyne.KeyReturn, "JUST SCANNED")
	h.settle()
	if h.ui.scan.panel.FillColor != colorJustScanned {
		t.Fatalf("JUST SCANNED is painted %v, want its own blue", h.ui.scan.panel.FillColor)
	}
	if !strings.Contains(h.ui.scan.label.Text, "A0007") {
		t.Fatalf("the repeat does not name the label: %q", h.ui.scan.label.Text)
	}
	h.scan(t, "hello", fyne.KeyReturn, "NOT A CODE")
	h.settle()
	if h.ui.scan.label.Text != "" {
		t.Fatalf("a text that is no code is named %q", h.ui.scan.label.Text)
	}
}

func TestRecentScansShowWholeCodes(t *testing.T) {
	h := newHarness(t)
	// The longest code there is: a 6-letter prefix and 8-digit serials.
	h.svc.UpdateSettings(context.Background(), map[string]string{"prefix": "ABCDEF", "serial_digits": "8"}, "test")
	code := h.issue(t, 1)[0]
	fyne.DoAndWait(func() { h.win.Resize(fyne.NewSize(1024, 600)) })
	h.scan(t, code, fyne.KeyReturn, "REDEEMED")
	h.settle()
	row := newRecentRow()
	showRecentRow(row, h.ui.scan.recent[0])
	text := row.(*fyne.Container).Objects[1].(*fyne.Container).Objects[0].(*canvas.Text)
	listWidth := h.ui.scan.list.Size().Width
	if text.Text != code || text.MinSize().Width > listWidth-20 {
		t.Fatalf("recent row shows %q, %.0f px wide in a %.0f px list; want the whole %q", text.Text, text.MinSize().Width, listWidth, code)
	}
}

func TestScanTextGrowsWithTheScreen(t *testing.T) {
	h := newHarness(t)
	sizes := map[string]float32{}
	for name, size := range map[string]fyne.Size{"small": fyne.NewSize(1024, 600), "large": fyne.NewSize(1920, 1080)} {
		fyne.DoAndWait(func() { h.win.Resize(size) })
		h.scan(t, "hello", fyne.KeyReturn, "NOT A CODE")
		h.clock.Advance(time.Second)
		sizes[name] = h.ui.scan.title.TextSize
	}
	if sizes["small"] < 44 || sizes["large"] < sizes["small"]*1.5 {
		t.Fatalf("title text %.0f on 1024×600 and %.0f on 1920×1080: want at least 44 and growing with the screen", sizes["small"], sizes["large"])
	}
}

func TestNotSavedSaysWhatToDo(t *testing.T) {
	h := newHarness(t)
	code := h.issue(t, 1)[0]
	h.db.Close() // the database can no longer record anything
	h.scan(t, code, fyne.KeyReturn, "NOT SAVED")
	if d := h.ui.scan.detail.Text; !strings.Contains(d, "do not hand over") {
		t.Fatalf("NOT SAVED says %q, want what to do", d)
	}
	if h.ui.scan.note.Text == "" {
		t.Fatal("the cause is not shown for the supervisor")
	}
}
