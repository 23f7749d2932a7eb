package multidesk_test

import (
	"context"
	"testing"
	"time"

	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// TestCloseAcrossASiteRename: a close's expiry names the site the
// desk closed in, and the server applies it only where that name is the
// desk's site as it holds it (central.CloseSiteRefusal). The docs have
// the operator rename an upgraded deployment's site 'main'
// (qrdesk-server site rename main NAME). Desk B, which never moved,
// closes its day with --expire-unused while offline (or before its next
// sync) across such a rename: the server refuses every expiry as made in
// another site, and the labels the clerk expired are unused again.
func TestCloseAcrossASiteRename(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 2)
		a.Sync(t)
		b.Sync(t)
		var expiredThere int
		b.Offline(func() {
			if err := h.DB.RenameSite(ctx, "main", "Berlin"); err != nil {
				t.Fatal(err)
			}
			h.Now = h.Now.Add(time.Minute)
			expiredThere = b.CloseDay(t, true).ExpiredNow
		})
		b.Sync(t)
		a.Sync(t)
		b.Sync(t)
		for _, code := range codes {
			if got := serverStatus(t, h, code); got != "expired" {
				t.Errorf("desk B (never moved; its site renamed main → Berlin) closed its day expiring %d labels: the server holds %s %s, desk B %s, want expired", expiredThere, code, got, b.Status(t, code))
			}
		}
	})
}
