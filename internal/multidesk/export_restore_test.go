package multidesk_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"qrdesk/internal/testpg"
	"qrdesk/serverdb"
)

// TestPullAfterARestoreWhoseFeedGrewPastTheCursor: a script pulls the
// feed ('qrdesk-server export --since', serverdb.Handovers) and keeps its
// cursor. The server is restored from a backup older than that cursor,
// and a parcel is handed over before the script pulls again: the new
// redemption must still come after the script's cursor: the restored
// feed goes on above the replaced database's head (serverdb/feedresume.go),
// so it never gives a position the script has passed again.
func TestPullAfterARestoreWhoseFeedGrewPastTheCursor(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		g := newRestorable(t, dbPath)
		a, b := g.deskAt(t, "Desk A", "A"), g.deskAt(t, "Desk B", "B")
		codes := a.Issue(t, 6)
		a.Sync(t)
		b.Sync(t)
		a.Redeem(t, codes[0], "li")
		backup := g.serverBackup(t)
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

// TestDeskPastTheBackupStartsOverAfterTheRestoresGap: desk B follows the
// feed (long polls, no enrolment between them) and has read it to its
// head, a redemption the backup lacks. The server is restored and goes on
// numbering above that head (serverdb/feedresume.go), so B's position is
// one the restored database never gave, at the very top of its feed. B
// must still be told the server lost history and start over, so it agrees
// with the server, rather than keep a redemption the server no longer
// holds because nothing comes after its position.
func TestDeskPastTheBackupStartsOverAfterTheRestoresGap(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx, stop := context.WithCancel(context.Background())
		defer stop()
		g := newRestorable(t, dbPath)
		a, b := g.deskAt(t, "Desk A", "A"), g.deskAt(t, "Desk B", "B")
		codes := a.Issue(t, 3)
		a.Sync(t)
		b.Sync(t)
		backup := g.serverBackup(t)
		status := func() string {
			var st string
			b.DB.SQL().QueryRow(`SELECT status FROM codes WHERE code = ?`, codes[0]).Scan(&st)
			return st
		}
		following := make(chan struct{})
		go func() { defer close(following); b.Svc.Follow(ctx) }()
		a.Redeem(t, codes[0], "li")
		waitFor(t, func() bool { return status() == "used" }, "desk B following the feed learns of A's redemption")

		g.DB.Close()
		r, err := serverdb.Restore(context.Background(), backup, g.cur, g.Now)
		if err != nil {
			t.Fatal(err)
		}
		g.open(g.cur)
		if _, head, err := g.DB.FeedBounds(ctx); err != nil || head != r.FeedHead {
			t.Fatalf("the feed's head after the restore is %d (%v), Restore said %d", head, err, r.FeedHead)
		}
		waitFor(t, func() bool { return status() == g.Server(t).Status(codes[0]) }, "desk B, following, agrees with the restored server, which lost A's redemption")
		stop()
		<-following
		if n := b.restarts(); n != 1 {
			t.Errorf("desk B started over %d times after the restore, want 1", n)
		}
	})
}

// waitFor polls cond for up to 15 s (a desk's follow loop backs off after
// a refused read) and fails the test, naming what, if it never holds.
func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	for start := time.Now(); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Since(start) > 15*time.Second {
			t.Fatalf("not within 15 s: %s", what)
		}
	}
}

// TestPullAfterARestoreOntoALostDatabase: the server's disk is lost, so the
// backup is restored onto nothing (a new SQLite file, an empty PostgreSQL
// database) and cannot learn where the lost feed ended. The script's
// cursor is above the backup's head; the desks resend and decide again
// before the script pulls, so the feed regrows past that cursor and the
// export answers from there: a redemption decided after the restore at a
// position at or below the cursor was skipped for good. Restored says so
// (NoFeedReplaced: the command warns), and 'restore --feed-above CURSOR'
// numbers the restored feed above the script's cursor.
func TestPullAfterARestoreOntoALostDatabase(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		g := newRestorable(t, dbPath)
		a, b := g.deskAt(t, "Desk A", "A"), g.deskAt(t, "Desk B", "B")
		codes := a.Issue(t, 6)
		a.Sync(t)
		b.Sync(t)
		backup := g.serverBackup(t)
		a.Redeem(t, codes[0], "li")
		a.Redeem(t, codes[1], "li")
		_, cursor, err := g.DB.Handovers(ctx, 0, 1000) // the script's pull: it keeps cursor
		if err != nil {
			t.Fatal(err)
		}
		g.DB.Close()
		lost := dbPath(t) // the disk is gone: nothing there (PostgreSQL: an empty database)
		r, err := serverdb.Restore(ctx, backup, lost, g.Now)
		if err != nil {
			t.Fatal(err)
		}
		if !r.NoFeedReplaced || r.FeedHead >= cursor {
			t.Errorf("restored onto nothing: NoFeedReplaced %v, feed head %d (the script's cursor %d), want the warning", r.NoFeedReplaced, r.FeedHead, cursor)
		}
		again := dbPath(t)
		if r, err = serverdb.RestoreAbove(ctx, backup, again, g.Now, cursor); err != nil {
			t.Fatal(err)
		}
		if r.NoFeedReplaced || r.FeedHead < cursor {
			t.Errorf("restore --feed-above %d: NoFeedReplaced %v, feed head %d, want the feed above the cursor", cursor, r.NoFeedReplaced, r.FeedHead)
		}
		g.open(again)
		b.Redeem(t, codes[4], "wang") // decided after the restore, before the desks resend
		a.Sync(t)
		b.Sync(t)
		evs, _, err := g.DB.Handovers(ctx, cursor, 1000)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, ev := range evs {
			found = found || (ev.Label == codes[4] && ev.Type == "redeem")
		}
		if !found {
			t.Errorf("the pull after cursor %d lacks the redemption of %s decided after the restore (%d events)", cursor, codes[4], len(evs))
		}
	})
}

// serverBackup takes a backup of the served database into a file, as
// 'qrdesk-server backup' does, and returns its path.
func (g *restorable) serverBackup(t *testing.T) string {
	t.Helper()
	backup := filepath.Join(t.TempDir(), "qrdesk-server.backup")
	if err := g.DB.Backup(context.Background(), backup); err != nil {
		t.Fatal(err)
	}
	return backup
}
