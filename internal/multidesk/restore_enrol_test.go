package multidesk_test

import (
	"context"
	"strings"
	"testing"

	"qrdesk/app"
	"qrdesk/central"
	"qrdesk/deskclient"
	"qrdesk/internal/testpg"
	"qrdesk/server"
)

// TestRestoreBeforeEnrolment: desk D is enrolled after the backup,
// issues a batch and redeems one of its labels online. The server is
// restored from the backup, which has no Desk D. D's sync fails with
// "unknown station token: check the token": nothing tells D or its
// operator that the server was restored and lost D's redemption, and D
// sends nothing again. Meanwhile the restored server does not know D's
// label at all. The refusal must say what happened (the server was
// restored from a backup older than this desk's enrolment) and what to do.
func TestRestoreBeforeEnrolment(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		g := newRestorable(t, dbPath)
		a := g.deskAt(t, "Desk A", "A")
		a.Issue(t, 1)
		a.Sync(t)
		backup := g.backup()
		d := g.deskAt(t, "Desk D", "D")
		codes := d.Issue(t, 2)
		d.Sync(t)
		if v := d.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk D online: %+v", v)
		}

		g.restore(backup)
		_, err := d.Svc.Sync(context.Background())
		if err == nil {
			t.Fatal("desk D synced with a server that has no Desk D")
		}
		if msg := err.Error(); !strings.Contains(msg, "restor") && !strings.Contains(msg, "backup") {
			t.Errorf("desk D's sync after the restore says %q: nothing says the server lost this desk (restored from a backup older than its enrolment), and D's online redemption of %s is lost meanwhile", msg, codes[0])
		}

		// The administrator enrols the desk again under its name, with a new
		// token: the desk must then send everything again.
		if err := g.DB.AddStation(context.Background(), central.Station{Name: "Desk D", Letter: "D", CreatedAt: 1}, server.HashToken("qrd_new_D")); err != nil {
			t.Fatal(err)
		}
		d.Svc.Remote = deskclient.New(g.URL, "qrd_new_D")
		d.Sync(t)
		if status, station := g.Server(t).StatusAndStation(codes[0]); status != "used" || station != "Desk D" {
			t.Errorf("after desk D's sync with its new token the server has %s %s at %q, want used at Desk D", codes[0], status, station)
		}
	})
}
