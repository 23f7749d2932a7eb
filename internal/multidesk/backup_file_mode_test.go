package multidesk_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// A clerk takes a backup of desk A to a folder others can read
// (`qrdesk backup /srv/share/desk-a.db`, a USB stick, /tmp), and the
// administrator one of the server by hand (`qrdesk-server backup -o
// FILE`). Each holds the full code of every unused label (each one hands
// over a parcel: the signature makes codes unforgeable, not unreadable)
// and the operators' salted PIN hashes (a 4-digit PIN falls to 10,000
// tries). Expected: readable by the owner only, as the key file, sync.json
// and a restored database are (0600). Both were written with the process's
// umask (0644 under the usual 022); now each is created 0600 before it is
// written (sqlstore.CreatePrivate).
func TestBackupsAreReadableByTheOwnerOnly(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("Windows keeps files private by ACLs, not mode bits")
	}
	probe := filepath.Join(t.TempDir(), "probe")
	if err := os.WriteFile(probe, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(probe); err != nil || st.Mode().Perm()&0o044 == 0 {
		t.Skip("this process's umask (or system) already hides new files from others: premise does not hold")
	}
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h, a, _, _ := centraltest.TwoDesks(t, dbPath, 3)
		dir := t.TempDir()
		desk := filepath.Join(dir, "desk-a.db")
		if err := a.Svc.Backup(ctx, desk); err != nil {
			t.Fatal(err)
		}
		modes := map[string]os.FileMode{}
		if st, err := os.Stat(desk); err == nil {
			modes["qrdesk backup"] = st.Mode().Perm()
		}
		srv := filepath.Join(dir, "server.db")
		if err := h.DB.Backup(ctx, srv); err == nil {
			if st, err := os.Stat(srv); err == nil {
				modes["qrdesk-server backup"] = st.Mode().Perm()
			}
		} else {
			t.Logf("server backup: %v (PostgreSQL backups are pg_dump's)", err)
		}
		for _, m := range modes {
			if m&0o077 != 0 {
				t.Errorf("backups written with mode %v: every unused label's code and the PIN hashes readable by other local users", modes)
			}
		}
	})
}
