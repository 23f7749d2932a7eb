package ui

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"qrdesk/app"
	centralpkg "qrdesk/central"
	"qrdesk/deskclient"
	"qrdesk/protocol"
	"qrdesk/server"
	"qrdesk/serverdb"
)

// TestStoppedBadgesOutliveTheWindow: a desk with its own operators joins a
// server whose staff list holds a newer badge of li; a later sync brings
// zhang's removal there. Both badges printed at the desk stopped, and the
// desk keeps saying so after the window (and its process) is gone: in its
// database, until li's new badge is saved on the Staff screen, and until
// a supervisor dismisses zhang's (a removed operator gets no badge). They
// were kept in memory only, and ForgetStoppedBadges was never called.
func TestStoppedBadgesOutliveTheWindow(t *testing.T) {
	h := newSignInHarness(t, false)
	ctx := context.Background()
	if _, err := h.operators.Add(ctx, "zhang", "2468", false, "admin"); err != nil {
		t.Fatal(err)
	}
	central, err := serverdb.Open(ctx, filepath.Join(t.TempDir(), "server.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer central.Close()
	central.AddStation(ctx, centralpkg.Station{Name: "Station A", Letter: "A", CreatedAt: 1}, server.HashToken("qrd_stopped"))
	staff := func(ch protocol.StaffChange) {
		t.Helper()
		if ch.Action == protocol.StaffAdd {
			ch.PINHash, _ = app.HashPIN("1111")
		}
		if _, err := central.ChangeStaff(ctx, ch, "manager", h.clock.Now().Unix()); err != nil {
			t.Fatal(err)
		}
	}
	staff(protocol.StaffChange{Action: protocol.StaffAdd, Name: "li"})
	staff(protocol.StaffChange{Action: protocol.StaffRenewBadge, Name: "li"})
	srv := httptest.NewServer((&server.API{Store: central, Log: slog.New(slog.DiscardHandler), Now: h.clock.Now}).Handler())
	defer srv.Close()
	h.svc.Remote = deskclient.New(srv.URL, "qrd_stopped")
	for range 2 { // the feed brings back what the first sync sent
		if _, err := h.svc.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	staff(protocol.StaffChange{Action: protocol.StaffRemove, Name: "zhang"})
	st, err := h.svc.Sync(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := "[{li false} {zhang true}]"
	if got := fmtBadges(st.StoppedBadges); got != want {
		t.Fatalf("the sync reports the stopped badges %s, want %s", got, want)
	}

	// The window closes; another process opens the desk.
	again := app.NewService(h.db, h.svc.Keys, nil)
	again.Now = h.clock.Now
	win := fyne.CurrentApp().NewWindow("qrdesk")
	win.Resize(fyne.NewSize(1200, 800))
	h.ui.quiet()
	ui := openUI(t, fyne.CurrentApp(), win, again, Options{Screen: "scan", TemplateDir: t.TempDir(), Operators: again.Operators()})
	ui.env.saveDir = t.TempDir()
	if text := (&syncBanner{env: ui.env}).text(app.SyncStatus{StoppedBadges: mustStopped(t, again)}, nil); !strings.Contains(text, "li") || !strings.Contains(text, "zhang") {
		t.Fatalf("the reopened desk's sync line says %q", text)
	}
	wang, err := again.Operators().Find(ctx, "wang")
	if err != nil {
		t.Fatal(err)
	}
	fyne.DoAndWait(func() { ui.env.signIn.set(&wang); ui.show("staff") })
	ui.env.jobs.Wait()
	s := ui.staff
	if len(s.stoppedOf) != 2 || len(s.stopped.Objects) != 2 {
		t.Fatalf("the Staff screen lists %+v", s.stoppedOf)
	}
	// li's new badge, saved from the note: the note ends.
	fyne.DoAndWait(func() { test.Tap(staffNoteButton(t, s, 0, T("Save the badge"))) })
	ui.env.jobs.Wait()
	if got := mustStopped(t, again); len(got) != 1 || got[0].Name != "zhang" {
		t.Fatalf("after li's new badge was saved: %+v (%q)", got, s.message.Text)
	}
	// zhang's, dismissed by the supervisor (audited).
	fyne.DoAndWait(func() { test.Tap(staffNoteButton(t, s, 0, T("Dismiss"))) })
	ui.env.jobs.Wait()
	if got := mustStopped(t, again); len(got) != 0 || len(s.stopped.Objects) != 0 {
		t.Fatalf("after zhang's note was dismissed: %+v", got)
	}
	var by string
	if err := h.db.SQL().QueryRow(`SELECT operator FROM audit WHERE action = 'stopped_badge_dismiss' AND subject = 'zhang'`).Scan(&by); err != nil || by != "wang" {
		t.Fatalf("the dismissal's audit row: %q %v", by, err)
	}
}

func fmtBadges(b []app.StoppedBadge) string {
	var parts []string
	for _, x := range b {
		r := "false"
		if x.Removed {
			r = "true"
		}
		parts = append(parts, "{"+x.Name+" "+r+"}")
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func mustStopped(t *testing.T, svc *app.Service) []app.StoppedBadge {
	t.Helper()
	got, err := svc.StoppedBadges(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// staffNoteButton is the button called text of the i-th stopped badge's
// note on the Staff screen.
func staffNoteButton(t *testing.T, s *staffScreen, i int, text string) *widget.Button {
	t.Helper()
	var found *widget.Button
	fyne.DoAndWait(func() {
		row := s.stopped.Objects[i].(*fyne.Container)
		for _, o := range row.Objects {
			if box, ok := o.(*fyne.Container); ok {
				for _, b := range box.Objects {
					if b, ok := b.(*keyButton); ok && b.Text == text {
						found = &b.Button
					}
				}
			}
		}
	})
	if found == nil {
		t.Fatalf("no %q button on note %d", text, i)
	}
	return found
}
