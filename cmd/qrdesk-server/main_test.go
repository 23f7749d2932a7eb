package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestServeAndShutDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	db := filepath.Join(t.TempDir(), "server.db")
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"station", "add", "Desk 1", "--db", db}, &out, &errOut); code != 0 || !strings.Contains(out.String(), "qrd_") {
		t.Fatalf("station add: %d %s %s", code, out.String(), errOut.String())
	}
	if code := run(context.Background(), []string{"station", "add", "Desk 1", "--db", db}, &out, &errOut); code == 0 {
		t.Fatal("the same station name was added twice")
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	var logs bytes.Buffer
	go func() { done <- run(ctx, []string{"--db", db, "--listen", addr}, &out, &logs) }()
	var resp *http.Response
	for i := 0; i < 100; i++ {
		if resp, err = http.Get("http://" + addr + "/v1/health"); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("health: %v %v", resp, err)
	}
	resp.Body.Close()
	cancel() // as SIGTERM does
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("graceful shutdown exited %d: %s", code, logs.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the server did not shut down")
	}
	if !strings.Contains(logs.String(), `"path":"/v1/health"`) || strings.Contains(logs.String(), "qrd_") {
		t.Fatalf("access log missing, or a token in it:\n%s", logs.String())
	}
}
