package multidesk_test

import (
	"context"
	"path/filepath"
	"testing"

	"qrdesk/internal/testpg"
	"qrdesk/serverdb"
)

// TestPullAfterARestoreWhoseFeedGrewPastTheCursor: a script pulls the
// feed ('qrdesk-server export --since', serverdb.Handovers) and keeps its
// cursor. The server is restored from a backup older than that cursor,
// and a parcel is handed over before the script pulls again: the new
// redemption takes a feed position at or below the script's cursor, so
// '--since CURSOR' never returns it. A cursor past the feed's end is
// refused now (TestExportRefusesACursorPastTheFeed); one the regrown feed
// has passed again cannot be told from a cursor of before the restore
// (the cursor carries no history epoch).
func TestPullAfterARestoreWhoseFeedGrewPastTheCursor(t *testing.T) {
	t.Skip("open: a pull cursor from before a server restore that the regrown feed has passed skips the events decided since (the cursor carries no epoch); webhook endpoints are not affected; docs/review/s38-hostile.md")
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		g := newRestorable(t, dbPath)
		a, b := g.deskAt(t, "Desk A", "A"), g.deskAt(t, "Desk B", "B")
		codes := a.Issue(t, 6)
		a.Sync(t)
		b.Sync(t)
		a.Redeem(t, codes[0], "li")
		backup := filepath.Join(t.TempDir(), "qrdesk-server.backup")
		if err := g.DB.Backup(ctx, backup); err != nil {
			t.Fatal(err)
		}
		b.Redeem(t, codes[1], "wang")
		b.Redeem(t, codes[2], "wang")
		_, cursor, err := g.DB.Handovers(ctx, 0, 1000) // the script's pull: it keeps cursor
		if err != nil {
			t.Fatal(err)
		}
		g.DB.Close()
		if _, err := serverdb.Restore(ctx, backup, g.cur, g.Now); err != nil {
			t.Fatal(err)
		}
		g.open(g.cur)
		for _, c := range codes[3:] { // decided after the restore, before the script pulls again
			a.Redeem(t, c, "li")
		}
		a.Sync(t) // its read of the feed places the changes (PostgreSQL)
		if _, head, err := g.DB.FeedBounds(ctx); err != nil || head < cursor {
			t.Fatalf("the feed ends at %d (%v), want past the script's cursor %d: export would refuse it", head, err, cursor)
		}
		evs, _, err := g.DB.Handovers(ctx, cursor, 1000)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, ev := range evs {
			got[ev.Label] = ev.Type == "redeem"
		}
		for _, c := range codes[3:] {
			if !got[c] {
				t.Errorf("the pull after cursor %d lacks the redemption of %s decided after the restore (got %d events)", cursor, c, len(evs))
			}
		}
	})
}
