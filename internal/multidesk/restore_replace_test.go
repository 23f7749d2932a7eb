package multidesk_test

import (
	"net/http"
	"testing"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// TestRestoreLosesAReplace is the soak's PostgreSQL seed 663684397: desk C
// replaces X by R and syncs (the replace goes up; R's one-label batch
// waits for the replace's answer and goes at the next sync). The server is
// restored from a backup older than the replace. C's next sync must send
// the replace again before R's batch: uploaded first, R is an ordinary
// label at the server, another desk uses it, the replace is then refused
// (its new label is no longer fresh) and X is handed over as well, with no
// conflict.
func TestRestoreLosesAReplace(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		g := newRestorable(t, dbPath)
		c, b := g.deskAt(t, "Desk C", "C"), g.deskAt(t, "Desk B", "B")
		x := c.Issue(t, 2)[0]
		c.Sync(t)
		b.Sync(t)
		backup := g.backup()
		r := c.Replace(t, x, "boss")
		c.Sync(t)

		g.restore(backup)
		c.Sync(t)
		if n := centraltest.Count(t, g.DB, `SELECT count(*) FROM codes WHERE code = ? AND entitlement <> ''`, r); n != 1 {
			t.Errorf("after desk C's sync the restored server holds %s unlinked (%d rows linked): its replace of %s was not sent again before it", r, n, x)
		}
		b.Sync(t)
		if v := b.Redeem(t, r, "wang"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk B, the replacement: %+v", v)
		}
		c.Sync(t)
		if v := b.Redeem(t, x, "wang"); v.Outcome == app.OutcomeRedeemed {
			t.Errorf("desk B redeemed %s, replaced by %s which was handed over: %+v", x, r, v)
		}
		if n := centraltest.Count(t, g.DB, `SELECT count(*) FROM events WHERE kind = 'replace' AND outcome = 'rejected'`); n != 0 {
			t.Errorf("the server rejected %d replaces", n)
		}
	})
}

// TestRestoreBeforeTheReplacementsBatch: the restore comes in the middle
// of desk C's sync, after its enrolment found nothing lost and before R's
// batch upload reaches the server (the soak's seed 663684397 exactly). The
// server stores R only from the replace event C sends again: the batch
// alone must not make R an ordinary label there.
func TestRestoreBeforeTheReplacementsBatch(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		g := newRestorable(t, dbPath)
		c, b := g.deskAt(t, "Desk C", "C"), g.deskAt(t, "Desk B", "B")
		x := c.Issue(t, 2)[0]
		c.Sync(t)
		b.Sync(t)
		backup := g.backup()
		r := c.Replace(t, x, "boss")
		c.Sync(t) // the replace goes up; R's batch waits for its answer

		// The restore just before R's batch reaches the server, and desk B's
		// scan of R just after it, before C's sync goes on.
		restored := false
		var scanned app.Verdict
		var scanErr error
		g.before = func(req *http.Request) {
			switch {
			case req.URL.Path == "/v1/batches" && !restored:
				restored = true
				g.restore(backup)
			case restored && req.URL.Path != "/v1/batches":
				g.before = nil
				scanned, scanErr = b.Svc.Redeem(t.Context(), r, "wang")
			}
		}
		c.Svc.Sync(t.Context()) // the restore is found, or not, during it
		if !restored || g.before != nil {
			t.Fatal("desk C's sync uploaded no batch, or sent nothing after it")
		}
		if scanErr != nil {
			t.Fatalf("desk B, the replacement: %v", scanErr)
		}
		b.Sync(t)
		c.Sync(t)
		b.Sync(t)
		if scanned.Outcome != app.OutcomeRedeemed { // unknown to the server until its replace came again
			if v := b.Redeem(t, r, "wang"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("desk B, the replacement after the syncs: %+v (in the window: %s)", v, scanned.Outcome)
			}
		}
		if v := b.Redeem(t, x, "wang"); v.Outcome == app.OutcomeRedeemed {
			t.Errorf("desk B redeemed %s, replaced by %s which was handed over: %+v", x, r, v)
		}
		if n := centraltest.Count(t, g.DB, `SELECT count(*) FROM events WHERE kind = 'replace' AND outcome = 'rejected'`); n != 0 {
			t.Errorf("the server rejected %d replaces", n)
		}
	})
}
