package ui

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"qrdesk/app"
	centralpkg "qrdesk/central"
	"qrdesk/deskclient"
	"qrdesk/internal/serverdbtest"
	"qrdesk/server"
	"qrdesk/serverdb"
)

func TestSyncBanner(t *testing.T) {
	h := newHarness(t)
	b := h.ui.scan.banner
	if b.label.Visible() {
		t.Fatal("the banner shows on a station without a server")
	}
	now := h.clock.Now().Unix()
	for _, tc := range []struct {
		st   app.SyncStatus
		err  error
		want []string
		not  string
	}{
		{app.SyncStatus{LastOK: now - 10, Waiting: 0}, nil, []string{"Online", "0 waiting"}, "WARNING"},
		{app.SyncStatus{LastOK: now - 600, Waiting: 3}, app.ErrTransient, []string{"OFFLINE", "3 waiting", "WARNING"}, ""},
		{app.SyncStatus{LastOK: now - 600, Waiting: 3}, errors.New("disk full"), []string{"Sync problem", "disk full"}, "OFFLINE"},
		{app.SyncStatus{}, nil, []string{"never", "WARNING"}, ""},
		{app.SyncStatus{LastOK: now - 10}, &app.ServerRefusal{Status: 403, Code: app.RefusedRevoked, Message: "revoked"}, []string{"REFUSED BY THE SERVER", "revoked"}, "OFFLINE"},
		{app.SyncStatus{LastOK: now - 10}, &app.ServerRefusal{Status: 409, Code: app.RefusedWrongRing}, []string{"REFUSED BY THE SERVER", "key file"}, "OFFLINE"},
		{app.SyncStatus{LastOK: now - 10}, fmt.Errorf("upload: %w", app.ErrTransient), []string{"OFFLINE"}, "REFUSED"},
	} {
		got := b.text(tc.st, tc.err)
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Fatalf("banner %q lacks %q", got, w)
			}
		}
		if tc.not != "" && strings.Contains(got, tc.not) {
			t.Fatalf("banner %q should not say %q", got, tc.not)
		}
	}

	// With a real server on loopback the window syncs in the background.
	central, err := serverdb.Open(context.Background(), filepath.Join(t.TempDir(), "server.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer central.Close()
	central.AddStation(context.Background(), centralpkg.Station{Name: "Station A", Letter: "A", CreatedAt: 1}, server.HashToken("qrd_ui_test"))
	srv := httptest.NewServer((&server.API{Store: central, Log: slog.New(slog.DiscardHandler), Now: h.clock.Now}).Handler())
	defer srv.Close()
	h.svc.Remote = deskclient.New(srv.URL, "qrd_ui_test")
	h.issue(t, 3)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go b.run(ctx)
	waitFor(t, "an online banner", func() bool { return strings.Contains(b.label.Text, "Online") })
	if n := serverdbtest.Of(t, central).CountLabels(""); n != 3 {
		t.Fatalf("the server has %d codes after the background sync, want 3", n)
	}
	srv.Close()
	runQueuedUI()
}
