package multidesk_test

import (
	"context"
	"path/filepath"
	"testing"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// Desk B's nightly backup is taken. In the morning the network is down and
// B hands over label X offline (the redemption waits in its outbox). The
// operator rolls B back to the backup (`qrdesk restore`, e.g. undoing an
// upgrade, docs/deploy.md: "nothing was lost"); the restore says only
// where the database before it is kept. B syncs, desk A scans X online.
// Expected: X is refused at A, or the double use is a conflict, or the
// restore refuses (or warns) while the database it replaces holds events
// the server has not confirmed. It was taken silently: B's redemption was
// only in desk.db.before-restore-…, which nothing reads, and A handed X
// over green: twice, unflagged. The restore now carries the events waiting
// in the outbox into the restored database, and B's sync sends them.
func TestRestoreOverUnsentOfflineRedemption(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 2)
		backup := filepath.Join(t.TempDir(), "b.bak")
		if err := b.DB.Backup(ctx, backup); err != nil {
			t.Fatal(err)
		}
		var v app.Verdict
		b.Offline(func() { v = b.Redeem(t, codes[0], "li") })
		if v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("offline redeem at B: %+v", v)
		}
		rb := restoreDesk(t, h, b, backup, "qrd_test_Desk_B")
		_, syncErr := rb.Svc.Sync(ctx)
		va := a.Redeem(t, codes[0], "li")
		conflicts := centraltest.Count(t, h.DB, `SELECT count(*) FROM conflicts WHERE code = ?`, codes[0])
		if va.Outcome == app.OutcomeRedeemed && conflicts == 0 {
			t.Errorf("desk B redeemed %s offline, was restored to its backup from before (sync after: %v); desk A then redeemed it online: %s, conflicts %d: handed over twice, unflagged", codes[0], syncErr, va.Outcome, conflicts)
		}
	})
}
