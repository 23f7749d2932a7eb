package faultsim

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestProxyModes: each mode does to a request what it says, as the server
// sees it and as the client sees it.
func TestProxyModes(t *testing.T) {
	var hits atomic.Int64
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		io.WriteString(w, `{"ok":true}`)
	}))
	defer upstream.Close()
	p, err := newProxy(func() string { return strings.TrimPrefix(upstream.URL, "http://") })
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	client := &http.Client{Timeout: 150 * time.Millisecond}
	for _, tc := range []struct {
		mode     Mode
		answered bool
		hits     int64
	}{
		{Mode{Kind: Pass}, true, 1},
		{Mode{Kind: Delay, Delay: 30 * time.Millisecond}, true, 1},
		{Mode{Kind: Delay, Delay: 400 * time.Millisecond}, false, 1}, // late: committed, the client gave up
		{Mode{Kind: DropRequest}, false, 0},
		{Mode{Kind: DropAnswer}, false, 1},
		{Mode{Kind: Duplicate}, true, 2},
		{Mode{Kind: Refuse}, false, 0},
		{Mode{Kind: Pass}, true, 1}, // and back
	} {
		t.Run(tc.mode.String(), func(t *testing.T) {
			p.setMode(tc.mode)
			before := hits.Load()
			resp, err := client.Post(p.URL()+"/v1/redeem", "application/json", strings.NewReader(`{}`))
			if err == nil {
				resp.Body.Close()
			}
			if answered := err == nil && resp.StatusCode == 200; answered != tc.answered {
				t.Errorf("answered %v (err %v), want %v", answered, err, tc.answered)
			}
			p.settle(time.Second)
			if got := hits.Load() - before; got != tc.hits {
				t.Errorf("the server saw %d requests, want %d", got, tc.hits)
			}
		})
	}
}
