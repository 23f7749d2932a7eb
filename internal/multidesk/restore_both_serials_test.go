package multidesk_test

import (
	"context"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/internal/testpg"
)

// TestSerialsAfterBothRestoresOneDeskSite: TestSerialsAfterBothRestores
// with desk A the only desk of its site (a store with one desk). Desk B,
// of another site, follows only its own site's feed and holds no copy of
// A's labels, so no desk tells the restored server A's serials 4-6: A,
// restored with the server, prints them again.
func TestSerialsAfterBothRestoresOneDeskSite(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		g := newRestorable(t, dbPath)
		if err := g.DB.AddSite(ctx, "Store", 1); err != nil {
			t.Fatal(err)
		}
		a, b := g.deskAt(t, "Desk A", "A"), g.deskAt(t, "Desk B", "B")
		if err := g.DB.SetStationSite(ctx, "Desk A", "Store"); err != nil {
			t.Fatal(err)
		}
		first := a.Issue(t, 3)
		a.Sync(t)
		b.Sync(t)
		serverBackup := g.backup()
		deskBackup := backupDesk(t, a.Desk)
		g.Now = g.Now.Add(time.Minute)
		printed := a.Issue(t, 3)
		a.Sync(t)
		b.Sync(t)
		g.restore(serverBackup)
		restoreDeskFile(t, a.Desk, deskBackup)
		g.Now = g.Now.Add(time.Minute)
		b.Sync(t)
		a.Sync(t)
		taken := map[int]string{}
		for _, c := range append(first, printed...) {
			code, err := app.Parse(c)
			if err != nil {
				t.Fatal(err)
			}
			taken[code.Serial] = c
		}
		_, again, err := a.Svc.Issue(ctx, app.IssueRequest{Count: 3})
		if err != nil {
			t.Fatalf("desk A, synced after both restores, cannot issue: %v", err)
		}
		for _, c := range again {
			if taken[c.Serial] != "" {
				t.Errorf("desk A (alone in its site) issued serial %d again (%s), printed before as %s", c.Serial, c, taken[c.Serial])
			}
		}
	})
}
