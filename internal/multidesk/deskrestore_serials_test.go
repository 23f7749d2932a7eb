package multidesk_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/deskclient"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
	"qrdesk/store"
)

// restoreDesk puts the desk's backup in place of its database, as
// 'qrdesk restore' does, and opens the desk again on it (same server
// token: the same desk).
func restoreDesk(t *testing.T, h *centraltest.Harness, d *centraltest.Desk, backup, token string) *centraltest.Desk {
	t.Helper()
	ctx := context.Background()
	path := d.DB.Path()
	d.DB.Close()
	if _, err := store.Restore(ctx, backup, path); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	svc := app.NewService(db, h.Keys, nil)
	svc.Now = func() time.Time { return h.Now }
	if err := svc.BindKeyRing(ctx); err != nil {
		t.Fatal(err)
	}
	svc.Remote = deskclient.New(h.URL, token)
	return &centraltest.Desk{Svc: svc, DB: db}
}

// serialsOf returns the serials of codes.
func serialsOf(t *testing.T, codes []string) []int {
	t.Helper()
	out := make([]int, len(codes))
	for i, s := range codes {
		c, err := app.Parse(app.Normalize(s))
		if err != nil {
			t.Fatal(err)
		}
		out[i] = c.Serial
	}
	return out
}

// restoredScene: desk A issues serials 1–3 and syncs, its backup is taken,
// it issues 4–6, syncs, redeems 4 online; then its database is restored
// from the backup (it knows only 1–3).
func restoredScene(t *testing.T, dbPath func(t testing.TB) string) (h *centraltest.Harness, a *centraltest.Desk, later []string) {
	t.Helper()
	h = centraltest.New(t, dbPath, 0)
	token := h.Station(t, "Desk A", "A")
	a = h.Desk(t, "Desk A", "A", token)
	a.Issue(t, 3)
	a.Sync(t)
	backup := filepath.Join(t.TempDir(), "desk-a.backup")
	if err := a.DB.Backup(context.Background(), backup); err != nil {
		t.Fatal(err)
	}
	h.Now = h.Now.Add(time.Minute)
	later = a.Issue(t, 3)
	if got := serialsOf(t, later); got[0] != 4 {
		t.Fatalf("desk A's second batch starts at serial %d: the test's premise changed", got[0])
	}
	a.Sync(t)
	if v := a.Redeem(t, later[0], "li"); v.Outcome != app.OutcomeRedeemed {
		t.Fatalf("desk A online: %+v", v)
	}
	h.Now = h.Now.Add(time.Minute)
	return h, restoreDesk(t, h, a, backup, token), later
}

// TestRestoredDeskSyncsThenIssuesAboveServerSerials: desk A is restored
// from its own backup (it knows serials 1–3; the server holds 1–6, 4
// redeemed) and syncs. Its next batch starts above the server's highest
// serial of its letter (7), issues without a collision, and the server
// takes it; the desk's own figures (issued 8, redeemed 1) are its
// dashboard row's again.
func TestRestoredDeskSyncsThenIssuesAboveServerSerials(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h, a, _ := restoredScene(t, dbPath)
		a.Sync(t)
		_, codes, err := a.Svc.Issue(ctx, app.IssueRequest{Count: 2})
		if err != nil {
			t.Fatalf("desk A, restored and synced, cannot issue: %v", err)
		}
		if got := []int{codes[0].Serial, codes[1].Serial}; got[0] != 7 || got[1] != 8 {
			t.Fatalf("desk A's batch after the restore has serials %v, want 7 and 8 (the server holds 1–6)", got)
		}
		a.Sync(t)
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM codes WHERE station_id = 'A'`); n != 8 {
			t.Fatalf("the server holds %d codes of letter A, want 8", n)
		}
		day := app.Day(h.Now)
		dash, err := h.DB.DayActivity(ctx, day.Unix(), day.AddDate(0, 0, 1).Unix())
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range dash.Desks {
			if row.Station != "Desk A" {
				continue
			}
			if row.Issued != 8 || row.Redeemed != 1 {
				t.Fatalf("dashboard row %+v: the test's premise changed", row)
			}
			st, err := a.Svc.Stats(ctx, "")
			if err != nil {
				t.Fatal(err)
			}
			if st.Issued != row.Issued || st.Redeemed != row.Redeemed {
				t.Errorf("desk A after the restore counts issued %d, redeemed %d; its dashboard row: issued %d, redeemed %d", st.Issued, st.Redeemed, row.Issued, row.Redeemed)
			}
			f := a.CloseDay(t, false).Figures
			if f.Issued != row.Issued || f.Redeemed != row.Redeemed {
				t.Errorf("desk A's close after the restore: issued %d, redeemed %d; its dashboard row: issued %d, redeemed %d", f.Issued, f.Redeemed, row.Issued, row.Redeemed)
			}
			return
		}
		t.Fatalf("the dashboard has no row for Desk A: %+v", dash.Desks)
	})
}

// TestRestoredDeskIssuesOnlyAfterSyncOrSupervisor: desk A, restored from
// its own backup, issues before it syncs: refused with what happened and
// what to do (it would print serials 4–5, which the server holds). A
// supervisor may allow it; the batch then starts above what the desk
// knows: serial 7, after the 4–6 it issued after the backup, which the
// serial mark beside its database (store/serialmark.go) kept.
func TestRestoredDeskIssuesOnlyAfterSyncOrSupervisor(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		_, a, _ := restoredScene(t, dbPath)
		_, _, err := a.Svc.Issue(ctx, app.IssueRequest{Count: 2})
		if !errors.Is(err, app.ErrRestoredNotSynced) {
			t.Fatalf("desk A, restored and not synced, issues: %v", err)
		}
		for _, want := range []string{"restored from a backup", "Sync first", "supervisor"} {
			if msg := app.ErrorMessage(err); !strings.Contains(msg, want) {
				t.Errorf("the refusal %q does not say %q", msg, want)
			}
		}
		_, codes, err := a.Svc.Issue(ctx, app.IssueRequest{Count: 2, Supervisor: "chen"})
		if err != nil {
			t.Fatalf("desk A with a supervisor's override: %v", err)
		}
		if codes[0].Serial != 7 {
			t.Errorf("the overridden batch starts at serial %d, want 7 (after the 4–6 the serial mark kept)", codes[0].Serial)
		}
	})
}
