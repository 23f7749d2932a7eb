package multidesk_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"qrdesk/app"
	"qrdesk/internal/testpg"
	"qrdesk/serverdb"
)

// TestBackupWhileRedeemingRestores: three desks redeem online, one label
// after another, while 'qrdesk-server backup' (serverdb.Backup: VACUUM
// INTO, pg_dump) copies the database; they go on after it. The server is
// then stopped and restored in place from that backup ('qrdesk-server
// restore': a new history epoch). After the desks' next syncs every
// redemption a desk was told was accepted is at the server, at that desk,
// every desk sent everything again (a fourth that only reads too), every
// desk's copy agrees with the server, and no other desk can use those
// labels again.
func TestBackupWhileRedeemingRestores(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		g := newRestorable(t, dbPath)
		desks := []*watchedDesk{g.deskAt(t, "Desk A", "A"), g.deskAt(t, "Desk B", "B"), g.deskAt(t, "Desk C", "C")}
		const perDesk = 40
		codes := desks[0].Issue(t, perDesk*len(desks))
		// Desk D only reads: it wrote nothing the restore could lose, yet
		// it sends everything again too (the new epoch).
		reader := g.deskAt(t, "Desk D", "D")
		for _, d := range append(desks, reader) {
			d.Sync(t)
		}

		backup := filepath.Join(t.TempDir(), "qrdesk-server.backup")
		var (
			mu      sync.Mutex
			acked   = map[string]string{} // label → the desk told it was redeemed
			errs    []string
			started sync.WaitGroup // each desk past a third of its labels
			taken   = make(chan struct{})
			done    sync.WaitGroup
		)
		started.Add(len(desks))
		for i, d := range desks {
			done.Add(1)
			go func(name string, d *watchedDesk, mine []string) {
				defer done.Done()
				for j, code := range mine {
					if j == perDesk/3 {
						started.Done()
					}
					v, err := d.Svc.Redeem(ctx, code, "li")
					mu.Lock()
					switch {
					case err != nil:
						errs = append(errs, fmt.Sprintf("%s redeem %s: %v", name, code, err))
					case v.Outcome != app.OutcomeRedeemed:
						errs = append(errs, fmt.Sprintf("%s redeem %s: %s", name, code, v.Outcome))
					default:
						acked[code] = name
					}
					mu.Unlock()
					if j == 2*perDesk/3 {
						<-taken // the rest after the backup
					}
				}
			}([]string{"Desk A", "Desk B", "Desk C"}[i], d, codes[i*perDesk:(i+1)*perDesk])
		}
		started.Wait()
		if err := g.DB.Backup(ctx, backup); err != nil {
			t.Fatalf("backup while the desks redeem: %v", err)
		}
		close(taken)
		done.Wait()
		if len(errs) > 0 {
			t.Fatalf("redemptions failed:\n%s", strings.Join(errs, "\n"))
		}
		if len(acked) != len(codes) {
			t.Fatalf("%d redemptions acknowledged, want %d", len(acked), len(codes))
		}
		atBackup := backupUsed(t, g, backup)
		if atBackup == 0 || atBackup == len(codes) {
			t.Fatalf("the backup holds %d of %d redemptions: it was not taken while the desks redeemed", atBackup, len(codes))
		}

		// The administrator stops the server and restores in place.
		g.DB.Close()
		r, err := serverdb.Restore(ctx, backup, g.cur, g.Now)
		if err != nil {
			t.Fatalf("restore: %v", err)
		}
		if r.Epoch != 1 {
			t.Errorf("restore started epoch %d, want 1", r.Epoch)
		}
		g.open(g.cur)
		desks = append(desks, reader)
		for range 2 {
			for _, d := range desks {
				d.Sync(t)
			}
		}
		for code, name := range acked {
			if status, station := g.Server(t).StatusAndStation(code); status != "used" || station != name {
				t.Errorf("acknowledged redemption of %s at %s: the restored server has %s at %q", code, name, status, station)
			}
		}
		used, conflicts := g.Server(t).CountLabels("used"), g.Server(t).CountConflicts()
		if used != len(codes) || conflicts != 0 {
			t.Errorf("the restored server has %d labels used and %d conflicts, want %d and 0", used, conflicts, len(codes))
		}
		for i, d := range desks {
			if d.restarts() < 1 {
				t.Errorf("desk %d did not send everything again after the restore", i)
			}
			if n := d.Count(t, `SELECT count(*) FROM codes WHERE status = 'used'`); n != len(codes) {
				t.Errorf("desk %d has %d labels used, want %d (the server's)", i, n, len(codes))
			}
		}
		// A label redeemed after the backup, at Desk C: Desk A is refused.
		last := codes[len(codes)-1]
		if v := desks[0].Redeem(t, last, "wang"); v.Outcome != app.OutcomeAlreadyUsed {
			t.Errorf("Desk A redeemed %s, which Desk C had handed over after the backup: %s", last, v.Outcome)
		}
	})
}

// backupUsed counts the redemptions a backup file holds, by restoring a
// copy of it aside (SQLite: the file itself; PostgreSQL: a new database).
func backupUsed(t *testing.T, g *restorable, backup string) int {
	t.Helper()
	if !g.pg {
		raw, err := sql.Open("sqlite", backup)
		if err != nil {
			t.Fatal(err)
		}
		defer raw.Close()
		var n int
		if err := raw.QueryRow(`SELECT count(*) FROM codes WHERE status = 'used'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	u, _ := url.Parse(g.cur)
	name := strings.TrimPrefix(u.Path, "/") + "_peek"
	u.Path = "/postgres"
	admin, err := sql.Open("pgx", u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.Exec(`CREATE DATABASE ` + name); err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	if _, err := serverdb.Restore(context.Background(), backup, u.String(), g.Now); err != nil {
		t.Fatal(err)
	}
	peek, err := sql.Open("pgx", u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer peek.Close()
	var n int
	if err := peek.QueryRow(`SELECT count(*) FROM codes WHERE status = 'used'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
