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
