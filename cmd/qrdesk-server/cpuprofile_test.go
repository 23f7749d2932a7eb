package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"qrdesk/internal/testpg"
	"qrdesk/serverdb"
)

// TestServeWritesTheCPUProfileAsked: 'serve --cpuprofile FILE' leaves a
// CPU profile (pprof's gzipped protobuf) when the server stops, and a
// profile it cannot write is refused before serving, naming the file.
func TestServeWritesTheCPUProfileAsked(t *testing.T) {
	dir := t.TempDir()
	db, prof, addr := filepath.Join(dir, "server.db"), filepath.Join(dir, "cpu.pprof"), freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	var serveErr bytes.Buffer
	go func() {
		var out bytes.Buffer
		done <- run(ctx, []string{"serve", "--db", db, "--listen", addr, "--cpuprofile", prof}, &out, &serveErr, now)
	}()
	up := answersHealth(addr)
	cancel()
	if code := <-done; !up || code != 0 {
		t.Fatalf("serve --cpuprofile: up %v, exit %d: %s", up, code, serveErr.String())
	}
	f, err := os.Open(prof)
	if err != nil {
		t.Fatalf("no CPU profile after the server stopped: %v", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("the CPU profile is not pprof's gzipped protobuf: %v", err)
	}
	if b, err := io.ReadAll(zr); err != nil || len(b) == 0 {
		t.Fatalf("the CPU profile is empty or cut short (%d bytes, %v)", len(b), err)
	}

	var out, errOut bytes.Buffer
	missing := filepath.Join(dir, "no such folder", "cpu.pprof")
	code := run(context.Background(), []string{"serve", "--db", db, "--listen", freeAddr(t), "--cpuprofile", missing}, &out, &errOut, now)
	if code == 0 || !strings.Contains(errOut.String(), "cannot write the CPU profile to "+missing) {
		t.Errorf("serve --cpuprofile into a missing folder: exit %d %q, want a refusal naming the file", code, errOut.String())
	}
}

// TestServeNeverOverwritesAFileWithTheCPUProfile: an operator who gives
// '--cpuprofile' the database's own path (a slip of the shell history, or
// 'server.db' for 'server.pprof') had the live SQLite database truncated
// and overwritten by the profile: every station, label and redemption
// gone ("file is not a database" at the next start). A backup, the TLS key
// or any file already there went the same way. An existing file is
// refused before anything is written, naming it, and left as it was.
func TestServeNeverOverwritesAFileWithTheCPUProfile(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		db := dbPath(t)
		addStation(t, db, "d1", "A")
		dir := t.TempDir()
		backup := filepath.Join(dir, "server-1.backup")
		if err := os.WriteFile(backup, []byte("the operator's backup"), 0o600); err != nil {
			t.Fatal(err)
		}
		targets := []string{backup}
		if !serverdb.IsPostgres(db) {
			targets = append(targets, db, db+"-wal")
		}
		for _, target := range targets {
			before, _ := os.ReadFile(target)
			var out, errOut bytes.Buffer
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second) // a server that took the file serves until then
			code := run(ctx, []string{"serve", "--db", db, "--listen", freeAddr(t), "--cpuprofile", target}, &out, &errOut, now)
			cancel()
			if code != 2 || !strings.Contains(errOut.String(), target+" already exists") {
				t.Errorf("serve --cpuprofile %s (a file already there): exit %d %q, want exit 2 refusing it by name", target, code, errOut.String())
			}
			if target == backup {
				if after, _ := os.ReadFile(target); !bytes.Equal(after, before) {
					t.Errorf("serve --cpuprofile %s changed the file: %q, was %q", target, after, before)
				}
			}
		}
		var out, errOut bytes.Buffer
		if code := run(context.Background(), []string{"station", "list", "--db", db}, &out, &errOut, now); code != 0 || !strings.Contains(out.String(), "d1") {
			t.Errorf("the database after the refused profiles: exit %d %q %q, want station d1 still listed", code, out.String(), errOut.String())
		}
	})
}

func addStation(t *testing.T, db, name, letter string) {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"station", "add", name, "--letter", letter, "--db", db}, &out, &errOut, now); code != 0 {
		t.Fatalf("station add %s: exit %d %s", name, code, errOut.String())
	}
}
