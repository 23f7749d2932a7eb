package multidesk_test

import (
	"context"
	"strings"
	"testing"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// Desk B's disk fills up mid-shift (a trigger refuses its writes of
// redemptions, as SQLITE_FULL would). A customer's label is scanned
// online: the server redeems it for desk B, then the desk cannot write
// its copy and shows an error. The clerk keeps the parcel. Space is freed
// and the customer's label is scanned again. Expected: the parcel goes
// (the earlier scan is this desk's own redemption whose answer it could
// not store), with a reason that says so; not "already used". Nothing is
// lost: the desk then holds the server's redemption as its own (its event
// id), a third scan is refused, and no conflict comes of it. The second
// label is the same with a sync between (the feed brings the server's
// redemption to the desk before the customer comes back).
func TestMirrorFailureThenRescan(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h, _, b, codes := centraltest.TwoDesks(t, dbPath, 2)
		for i, code := range codes {
			if _, err := b.DB.SQL().Exec(`CREATE TRIGGER full BEFORE INSERT ON redemptions BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`); err != nil {
				t.Fatal(err)
			}
			_, err1 := b.Svc.Redeem(ctx, code, "li")
			if _, err := b.DB.SQL().Exec(`DROP TRIGGER full`); err != nil {
				t.Fatal(err)
			}
			if err1 == nil {
				t.Fatalf("label %d: the scan on a full disk gave no error", i)
			}
			if server := centraltest.Count(t, h.DB, `SELECT count(*) FROM codes WHERE code = ? AND status = 'used' AND used_station = 'Desk B'`, code); server != 1 {
				t.Fatalf("label %d: the server holds %d redemptions by desk B, want 1 (it redeemed online)", i, server)
			}
			if i == 1 {
				b.Sync(t) // the feed's copy of the redemption lands first
			}
			v2, err2 := b.Svc.Redeem(ctx, code, "li")
			if err2 != nil || v2.Outcome != app.OutcomeRedeemed {
				t.Errorf("label %d: desk B could not store the server's redemption (%v); the rescan after freeing space: %s %q (%v), want redeemed: the customer is refused a parcel never handed over", i, err1, v2.Outcome, v2.Reason, err2)
			}
			if !strings.Contains(v2.Reason, "could not store") {
				t.Errorf("label %d: the rescan's reason %q does not say the earlier scan's answer was not stored", i, v2.Reason)
			}
			if own := b.Count(t, `SELECT count(*) FROM redemptions r JOIN codes c ON c.id = r.code_id WHERE c.code = ? AND r.own = 1 AND r.undone_at = 0`, code); own != 1 {
				t.Errorf("label %d: desk B holds %d redemptions of its own, want 1 (the server's)", i, own)
			}
			if v3 := b.Redeem(t, code, "wang"); v3.Outcome != app.OutcomeAlreadyUsed && v3.Outcome != app.OutcomeJustScanned {
				t.Errorf("label %d: a third scan at desk B: %s, want refused", i, v3.Outcome)
			}
		}
		b.Sync(t)
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM conflicts`); n != 0 {
			t.Errorf("the server holds %d conflicts, want none (one redemption per label)", n)
		}
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM events WHERE kind = 'redeem'`); n != 2 {
			t.Errorf("the server holds %d redeem events, want 2", n)
		}
	})
}
