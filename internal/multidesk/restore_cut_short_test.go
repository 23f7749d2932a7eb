package multidesk_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/internal/testpg"
)

// TestRestoreFoundBySyncCutShortStartsOver: desk N, of site North, holds a
// copy of main's label L from an online scan the server refused (L was
// used at desk A): N's event on L makes North a holder of L. The server
// is restored to before that. N's next sync finds the server lost writes
// it had confirmed, queues everything again, forgets its write numbers,
// and is cut short before it starts over (the network, or its token
// revoked while it syncs). At N's next sync nothing shows the lost
// history any more; N must still start over and drop the copy nothing
// follows now (the restored server holds no event of N on L), or its copy
// stays used while A's undo makes L unused. The property test's seed 118
// (rename, staff-close and rehire families on) found it.
func TestRestoreFoundBySyncCutShortStartsOver(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		g := newRestorable(t, dbPath)
		if err := g.DB.AddSite(ctx, "North", 1); err != nil {
			t.Fatal(err)
		}
		a, n := g.deskAt(t, "Desk A", "A"), g.deskAt(t, "Desk N", "N")
		if err := g.DB.SetStationSite(ctx, "Desk N", "North"); err != nil {
			t.Fatal(err)
		}
		codes := a.Issue(t, 1)
		a.Sync(t)
		n.Sync(t)
		backup := g.backup()
		g.Now = g.Now.Add(time.Minute)
		if v := a.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A online: %+v", v)
		}
		if v := n.Redeem(t, codes[0], "wang"); v.Outcome != app.OutcomeAlreadyUsed {
			t.Fatalf("desk N online: %+v", v)
		}
		g.restore(backup)
		a.Sync(t) // finds the restore, sends its redemption again
		// N's sync is cut short when it tells the server the serials it
		// holds, the step before its start over.
		cut, cancel := context.WithCancel(ctx)
		var cutShort atomic.Bool
		g.before = func(r *http.Request) {
			if r.URL.Path != "/v1/enrol" || r.Body == nil {
				return
			}
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if bytes.Contains(body, []byte(`"held"`)) && !cutShort.Swap(true) {
				cancel()
			}
		}
		_, err := n.Svc.Sync(cut)
		g.before = nil
		if err == nil || !cutShort.Load() {
			t.Fatalf("desk N's sync after the restore was not cut short where the test cuts it (error %v): the test's premise changed", err)
		}
		g.Now = g.Now.Add(time.Minute)
		a.Undo(t, codes[0], "wrong parcel")
		a.Sync(t)
		n.Sync(t)
		n.Sync(t)
		var status string
		err = n.DB.SQL().QueryRowContext(ctx, `SELECT status FROM codes WHERE code = ?`, codes[0]).Scan(&status)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			t.Fatal(err)
		case status != string(app.StatusUnused):
			t.Errorf("desk N holds %s %s after desk A's undo (the server: unused); its copy follows nothing since the restore", codes[0], status)
		}
	})
}
