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

// TestStationCommands: names and letters are checked, each mistake is a
// usage error (exit 2) that says what to do, and a letter belongs to one
// station.
func TestStationCommands(t *testing.T) {
	db := filepath.Join(t.TempDir(), "server.db")
	run1 := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := run(context.Background(), append(args, "--db", db), &out, &errOut)
		return code, out.String(), errOut.String()
	}
	for _, tc := range []struct {
		args []string
		code int
		say  string
	}{
		{[]string{"station", "add", "Desk 1", "--letter", "b"}, 0, "letter B"},
		{[]string{"station", "add", ""}, 2, "needs a name"},
		{[]string{"station", "add", "Desk\n2"}, 2, "control character"},
		{[]string{"station", "add", strings.Repeat("张", 41)}, 2, "at most 40"},
		{[]string{"station", "add", "Desk 2", "--letter", "7"}, 2, "one letter A–Z"},
		{[]string{"station", "add", "Desk 2", "--letter", "B"}, 3, `belongs to station "Desk 1"`},
		{[]string{"station", "add", "Desk 1", "--letter", "C"}, 3, "exists"},
		{[]string{"station", "frobnicate"}, 2, "station add NAME --letter L"},
		{[]string{"station", "letter", "Desk 1", "C"}, 2, "cannot change"},
		{[]string{"station", "renew", "Nobody"}, 3, "no such station"},
		{[]string{"station", "renew", "Desk 1"}, 0, "qrd_"},
		{[]string{"ring", "show"}, 0, "-"},
		{[]string{"ring", "reset"}, 0, "cleared"},
		{[]string{"report", "--date", "tomorrow"}, 2, "YYYY-MM-DD"},
	} {
		code, out, errOut := run1(tc.args...)
		if code != tc.code || !strings.Contains(out+errOut, tc.say) {
			t.Errorf("%q: exit %d %q%q, want %d mentioning %q", tc.args, code, out, errOut, tc.code, tc.say)
		}
	}
	if _, out, _ := run1("station", "list"); !strings.Contains(out, "Desk 1\tB\tactive") || strings.Contains(out, "Desk 2") {
		t.Fatalf("station list:\n%s", out)
	}
}
