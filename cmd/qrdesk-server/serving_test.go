package main

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"qrdesk/internal/testpg"
)

// TestRestoreRefusedWhileServing: 'qrdesk-server restore' with a server
// still running is refused and changes nothing (the server would go on
// writing into the database moved aside, and the desks' work since with
// it); a second server may serve the same database beside the first (two
// behind a load balancer), and the restore waits for both. Once they have
// stopped, the same restore goes through. Both engines.
func TestRestoreRefusedWhileServing(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		db := dbPath(t)
		run1 := func(ctx context.Context, args ...string) (int, string, string) {
			var out, errOut bytes.Buffer
			code := run(ctx, append(args, "--db", db), &out, &errOut, now)
			return code, out.String(), errOut.String()
		}
		bg := context.Background()
		if code, _, errOut := run1(bg, "station", "add", "Desk 1", "--letter", "A"); code != 0 {
			t.Fatal(errOut)
		}
		backupFile := filepath.Join(t.TempDir(), "b1.backup")
		if code, out, errOut := run1(bg, "backup", "-o", backupFile); code != 0 {
			t.Fatalf("backup: exit %d %s%s", code, out, errOut)
		}
		if code, _, errOut := run1(bg, "station", "add", "Desk 2", "--letter", "B"); code != 0 {
			t.Fatal(errOut)
		}

		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		ctx, cancel := context.WithCancel(bg)
		done := make(chan int, 1)
		var serveErr bytes.Buffer
		go func() {
			var out bytes.Buffer
			done <- run(ctx, []string{"--db", db, "--listen", addr}, &out, &serveErr, now)
		}()
		up := answersHealth(addr)
		if !up {
			cancel()
			t.Fatalf("the server did not start: %s", serveErr.String())
		}

		code, out, errOut := run1(bg, "restore", backupFile)
		if code != 3 || !strings.Contains(errOut, "a qrdesk-server is serving this database: stop it first") {
			t.Errorf("restore while serving: exit %d %s%s, want 3 and 'is serving this database: stop it first'", code, out, errOut)
		}
		if _, list, _ := run1(bg, "station", "list"); !strings.Contains(list, "Desk 2") {
			t.Errorf("the refused restore changed the database: stations\n%s", list)
		}
		// A second server on the same database (two behind a load
		// balancer) serves beside the first; the restore waits for both.
		second := freeAddr(t)
		ctx2, cancel2 := context.WithCancel(bg)
		done2 := make(chan int, 1)
		var serveErr2 bytes.Buffer
		go func() {
			var out bytes.Buffer
			done2 <- run(ctx2, []string{"--db", db, "--listen", second}, &out, &serveErr2, now)
		}()
		if !answers(second) {
			cancel2()
			t.Fatalf("a second server on the same database did not start: %s", serveErr2.String())
		}
		cancel()
		<-done
		if code, _, errOut := run1(bg, "restore", backupFile); code != 3 || !strings.Contains(errOut, "is serving this database") {
			t.Errorf("restore while the second server serves: exit %d %s, want 3", code, errOut)
		}
		cancel2()
		select {
		case code := <-done2:
			if code != 0 {
				t.Fatalf("the second server exited %d: %s", code, serveErr2.String())
			}
		case <-time.After(15 * time.Second):
			t.Fatal("the second server did not shut down")
		}
		if code, out, errOut := run1(bg, "restore", backupFile); code != 0 || !strings.Contains(out, "history epoch 1 started") {
			t.Fatalf("restore after the server stopped: exit %d %s%s", code, out, errOut)
		}
		if _, list, _ := run1(bg, "station", "list"); strings.Contains(list, "Desk 2") || !strings.Contains(list, "Desk 1") {
			t.Errorf("after the restore the stations are\n%s\nwant Desk 1 only", list)
		}
	})
}

// TestServeWarnsOfPlainHTTP: without TLS, a server listening beyond
// loopback logs that tokens and passwords travel unencrypted; on
// 127.0.0.1, or with TLS, it does not.
func TestServeWarnsOfPlainHTTP(t *testing.T) {
	for _, tc := range []struct {
		listen string
		warns  bool
	}{
		{"127.0.0.1:0", false},
		{"0.0.0.0:0", true},
	} {
		t.Run(tc.listen, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "server.db")
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			var out, logs bytes.Buffer
			run(ctx, []string{"--db", db, "--listen", tc.listen}, &out, &logs, now)
			warned := strings.Contains(logs.String(), "serving plain HTTP beyond this machine")
			if warned != tc.warns || !strings.Contains(logs.String(), `"msg":"listening"`) {
				t.Errorf("listen %s: warned %v, want %v; log:\n%s", tc.listen, warned, tc.warns, logs.String())
			}
		})
	}
}

// answers waits up to 5 s for a server at addr to answer /v1/health.
func answers(addr string) bool {
	for range 250 {
		if resp, err := http.Get("http://" + addr + "/v1/health"); err == nil {
			resp.Body.Close()
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// TestServeSaysWhichDatabase: serve logs the database it serves, and warns
// when it has just created it, so a server started without --db, or in the
// wrong directory, does not quietly serve an empty database.
func TestServeSaysWhichDatabase(t *testing.T) {
	db := filepath.Join(t.TempDir(), "server.db")
	serveBriefly := func() string {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		var out, logs bytes.Buffer
		run(ctx, []string{"--db", db, "--listen", "127.0.0.1:0"}, &out, &logs, now)
		return logs.String()
	}
	first := serveBriefly()
	if !strings.Contains(first, "created a new, empty server database") || !strings.Contains(first, db) {
		t.Errorf("the first start created %s but its log says:\n%s", db, first)
	}
	second := serveBriefly()
	if strings.Contains(second, "created a new") || !strings.Contains(second, `"msg":"database","sqlite":"`+db+`"`) {
		t.Errorf("the second start found %s but its log says:\n%s", db, second)
	}
}

// TestDatabaseLogHidesThePostgresPassword: the database line names a
// PostgreSQL server without its password.
func TestDatabaseLogHidesThePostgresPassword(t *testing.T) {
	for _, dsn := range []string{"postgres://qrdesk:s3cret@db.example:5432/qrdesk", "postgres://qrdesk@db.example/qrdesk?password=s3cret"} {
		var logs bytes.Buffer
		logDatabase(slog.New(slog.NewJSONHandler(&logs, nil)), dsn, false)
		if strings.Contains(logs.String(), "s3cret") || !strings.Contains(logs.String(), "db.example") {
			t.Errorf("database log line: %s", logs.String())
		}
	}
}

// TestServeRefusesADatabaseThatIsNoFile (hostile4): --db naming a folder
// said "check that the folder exists and is writable" (it did, and was);
// --db given PostgreSQL's key=value settings ("host=db password=…") was
// taken as a SQLite file name: the server served a new, empty database
// named after them and logged the password in clear.
func TestServeRefusesADatabaseThatIsNoFile(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(t.TempDir()) // where a key=value --db would become a file
	file := filepath.Join(t.TempDir(), "orders.csv")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	now := func() time.Time { return time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC) }
	for _, tc := range []struct {
		db, want string
	}{
		{dir, "is a folder"},
		{"host=127.0.0.1 port=1 user=u password=s3cret dbname=db", "postgres://"},
		{"dbname=qrdesk sslmode=disable", "postgres://"},
		// SQLite takes "" as a private, temporary database: the server
		// served one, logged as the working folder, and lost it at exit.
		{"", "--db is empty"},
		{" ", "--db is empty"},
		{filepath.Join(file, "server.db"), "is a file, not a folder"},
		// Another database's URL became folders and a new, empty SQLite
		// file named after it, password and all, served as "postgres".
		{"mysql://u:s3cret@db.example/qrdesk", `starts with "mysql://"`},
		{"http://db.example/qrdesk", "a SQLite file or a postgres:// URL"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		var out, logs bytes.Buffer
		code := run(ctx, []string{"serve", "--db", tc.db, "--listen", "127.0.0.1:0"}, &out, &logs, now)
		cancel()
		if code == 0 || !strings.Contains(logs.String(), tc.want) || strings.Contains(logs.String(), "s3cret") {
			t.Errorf("--db %q: exit %d, said:\n%s", tc.db, code, logs.String())
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the folder given as --db got %d entries", len(entries))
	}
	if entries, _ := os.ReadDir("."); len(entries) != 0 {
		t.Errorf("the working folder got %d entries, the first %q", len(entries), entries[0].Name())
	}
}

// answersHealth waits up to 5 s for a server at addr to answer its health
// check, and says whether it did.
func answersHealth(addr string) bool {
	for range 250 {
		if resp, err := http.Get("http://" + addr + "/v1/health"); err == nil {
			resp.Body.Close()
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}
