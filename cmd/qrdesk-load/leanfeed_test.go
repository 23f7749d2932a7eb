package main

import (
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"qrdesk/deskclient"
	"qrdesk/protocol"
)

// TestCountFeed: counting an answer of the feed gives what decoding it
// gives (the kinds, and the labels), whatever the changes' data hold.
func TestCountFeed(t *testing.T) {
	tests := []struct {
		name    string
		changes []protocol.Change
		next    int64
	}{
		{"Empty", []protocol.Change{}, 41},
		{"Kinds", []protocol.Change{
			{Seq: 42, Kind: "code", Code: "2345-ABCD", Station: "load L1 00001", Data: `{"created_at":1,"expire_at":0}`},
			{Seq: 43, Kind: "redeem", Code: "2345-ABCD", Station: "load L1 00002", Data: `{"at":2,"event_id":"L1-2-1","kind":"code","operator":"load"}`},
			{Seq: 44, Kind: "conflict", Code: "2345-ABCD", Station: "load L1 00003", Data: `{"code":"x","first_station":"\"kind\":\"code\""}`},
			{Seq: 45, Kind: "redeem", Code: "2345-EFGH", Station: "a \"kind\":\"x\" desk", Data: `{}`},
			{Seq: 46, Kind: "staff", Code: "", Station: "", Data: `{"kind":"code","code":"2345-WXYZ"}`},
		}, 46},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, err := json.Marshal(map[string]any{"changes": tt.changes, "next": tt.next}) // as the server encodes it
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]int{}
			var wantCodes []string
			for _, ch := range tt.changes {
				want[string(ch.Kind)]++
				wantCodes = append(wantCodes, ch.Code)
			}
			kinds, codes, next, err := countFeed(append(body, '\n'), true)
			if err != nil || next != tt.next || !maps.Equal(kinds, want) || !slices.Equal(codes, wantCodes) {
				t.Fatalf("countFeed(%s) = %v, %q, %d, %v; want %v, %q, %d", body, kinds, codes, next, err, want, wantCodes, tt.next)
			}
			if _, codes, _, _ := countFeed(body, false); codes != nil {
				t.Errorf("countFeed without codes listed %q", codes)
			}
		})
	}
}

// TestCountChangesSendsTheClientsHeaders: a feed read of --lean-feed says
// who the desk is and what it runs as deskclient.Client's requests do. The
// server records a desk's version when it changes: a missing release made
// every other request of a desk a database write, and at 5,000 desks on
// SQLite those writes kept every answer waiting past the desks' timeouts.
func TestCountChangesSendsTheClientsHeaders(t *testing.T) {
	var mu sync.Mutex
	var got []http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Clone())
		mu.Unlock()
		io.WriteString(w, `{"changes":[],"next":7}`)
	}))
	t.Cleanup(srv.Close)
	l := &load{ring: "ring1", cfg: config{leanFeed: true}}
	d := &desk{l: l, c: deskclient.New(srv.URL, "qrd_token")}
	if _, _, err := d.c.Changes(context.Background(), l.ring, 7, 0); err != nil {
		t.Fatal(err)
	}
	if _, _, next, err := d.countChanges(context.Background(), 7, 0, false); err != nil || next != 7 {
		t.Fatalf("countChanges: next %d, %v", next, err)
	}
	if len(got) != 2 {
		t.Fatalf("%d requests, want 2", len(got))
	}
	for _, h := range []string{"Authorization", protocol.RingHeader, protocol.Header, protocol.ReleaseHeader} {
		if client, lean := got[0].Get(h), got[1].Get(h); client == "" || lean != client {
			t.Errorf("%s: the client sends %q, --lean-feed %q", h, client, lean)
		}
	}
}
