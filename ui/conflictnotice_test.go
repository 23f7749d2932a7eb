package ui

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"

	"qrdesk/app"
	centralpkg "qrdesk/central"
	"qrdesk/deskclient"
	"qrdesk/server"
	"qrdesk/serverdb"
	"qrdesk/store"
)

// TestConflictShownOnTheScanScreen: two desks redeem the same label while
// offline; when this window's sync brings the conflict back, the Scan
// screen shows a red bar naming the label and both desks (in English and
// Chinese) until Today, which lists the conflicts, is opened.
func TestConflictShownOnTheScanScreen(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	central, err := serverdb.Open(ctx, filepath.Join(t.TempDir(), "server.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer central.Close()
	central.AddStation(ctx, centralpkg.Station{Name: "Station A", Letter: "A", CreatedAt: 1}, server.HashToken("qrd_desk_a"))
	central.AddStation(ctx, centralpkg.Station{Name: "Station B", Letter: "B", CreatedAt: 1}, server.HashToken("qrd_desk_b"))
	srv := httptest.NewServer((&server.API{Store: central, Log: slog.New(slog.DiscardHandler), Now: h.clock.Now}).Handler())
	defer srv.Close()

	// Desk B: its own database, the deployment's key file.
	dbB, err := store.Open(ctx, filepath.Join(t.TempDir(), "b.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer dbB.Close()
	dbB.UseClock(h.clock.Now)
	b := app.NewService(dbB, h.svc.Keys, nil)
	b.Now = h.clock.Now
	if _, err := b.UpdateSettings(ctx, map[string]string{"configured": "true", "operator": "sun"}, "test"); err != nil {
		t.Fatal(err)
	}
	remoteA, remoteB := deskclient.New(srv.URL, "qrd_desk_a"), deskclient.New(srv.URL, "qrd_desk_b")
	h.svc.Remote, b.Remote = remoteA, remoteB
	code := h.issue(t, 1)[0]
	banner, notice := h.ui.scan.banner, h.ui.scan.conflict
	if err := banner.once(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	notice.baseline(ctx) // as the window does when it starts

	// Both desks offline redeem the label; B uploads first.
	h.svc.Remote, b.Remote = nil, nil
	for _, d := range []*app.Service{h.svc, b} {
		if v, err := d.Redeem(ctx, code, "li"); err != nil || v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("offline redeem: %+v %v", v, err)
		}
	}
	h.svc.Remote, b.Remote = remoteA, remoteB
	if _, err := b.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if notice.box.Visible() {
		t.Fatal("the conflict bar shows before this desk's sync brought a conflict")
	}
	if err := banner.once(ctx); err != nil {
		t.Fatal(err)
	}
	runQueuedUI()
	if !notice.box.Visible() || !strings.Contains(notice.text.Text, "A0001") || !strings.Contains(notice.text.Text, "Station B") ||
		!strings.Contains(notice.text.Text, "supervisor") {
		t.Fatalf("after the sync the Scan screen shows %v %q, want the conflict of A0001 with Station B and what to do", notice.box.Visible(), notice.text.Text)
	}
	list, _ := h.svc.Conflicts(ctx)
	override = chineseTexts(t)
	if zh := conflictNoticeText(list, 0); !strings.Contains(zh, "冲突") || !strings.Contains(zh, "A0001") || !strings.Contains(zh, "主管") {
		t.Errorf("in Chinese the bar says %q", zh)
	}
	override = nil
	// A second sync with nothing new keeps it; opening Today hides it.
	banner.once(ctx)
	runQueuedUI()
	if !notice.box.Visible() {
		t.Fatal("the bar went away before Today was opened")
	}
	fyne.DoAndWait(func() { h.ui.show("today") })
	h.settle()
	waitFor(t, "the bar to go", func() bool { return !notice.box.Visible() })
	banner.once(ctx)
	runQueuedUI()
	if notice.box.Visible() {
		t.Fatal("the bar came back without a new conflict")
	}
}
