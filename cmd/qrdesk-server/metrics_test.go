package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// freeAddr is a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// get waits up to 2 s for the server to listen, then returns the status
// and body of GET url.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	var resp *http.Response
	var err error
	for i := 0; i < 100; i++ {
		if resp, err = http.Get(url); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// TestMetricsListen: /metrics is on the API's address unless
// --metrics-listen gives it its own (then only there); /readyz is on the
// API's address either way.
func TestMetricsListen(t *testing.T) {
	for _, separate := range []bool{false, true} {
		api, metrics := freeAddr(t), ""
		args := []string{"--db", filepath.Join(t.TempDir(), "server.db"), "--listen", api}
		if separate {
			metrics = freeAddr(t)
			args = append(args, "--metrics-listen", metrics)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan int)
		var logs bytes.Buffer
		go func() { done <- run(ctx, args, &bytes.Buffer{}, &logs, now) }()
		if code, body := get(t, "http://"+api+"/readyz"); code != 200 || !strings.Contains(body, `"ready"`) {
			t.Errorf("separate=%v: /readyz %d %s", separate, code, body)
		}
		code, body := get(t, "http://"+api+"/metrics")
		onAPI := code == 200 && strings.Contains(body, "qrdesk_http_requests_total")
		if onAPI == separate {
			t.Errorf("separate=%v: /metrics on the API's address: %d %.200s", separate, code, body)
		}
		if separate {
			if code, body := get(t, "http://"+metrics+"/metrics"); code != 200 || !strings.Contains(body, `qrdesk_http_requests_total{route="GET /readyz",status="200"} 1`) {
				t.Errorf("--metrics-listen: %d %.2000s", code, body)
			}
		}
		cancel()
		if code := <-done; code != 0 {
			t.Fatalf("separate=%v: exit %d: %s", separate, code, logs.String())
		}
	}
}
