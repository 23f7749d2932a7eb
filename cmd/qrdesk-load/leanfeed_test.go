package main

import (
	"encoding/json"
	"maps"
	"testing"

	"qrdesk/app"
)

// TestCountFeed: counting an answer of the feed gives what decoding it
// gives, whatever the changes' data hold.
func TestCountFeed(t *testing.T) {
	tests := []struct {
		name    string
		changes []app.RemoteChange
		next    int64
	}{
		{"Empty", []app.RemoteChange{}, 41},
		{"Kinds", []app.RemoteChange{
			{Seq: 42, Kind: "code", Code: "2345-ABCD", Station: "load L1 00001", Data: `{"created_at":1,"expire_at":0}`},
			{Seq: 43, Kind: "redeem", Code: "2345-ABCD", Station: "load L1 00002", Data: `{"at":2,"event_id":"L1-2-1","kind":"code","operator":"load"}`},
			{Seq: 44, Kind: "conflict", Code: "2345-ABCD", Station: "load L1 00003", Data: `{"code":"x","first_station":"\"kind\":\"code\""}`},
			{Seq: 45, Kind: "redeem", Code: "2345-EFGH", Station: "a \"kind\":\"x\" desk", Data: `{}`},
		}, 45},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, err := json.Marshal(map[string]any{"changes": tt.changes, "next": tt.next}) // as the server encodes it
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]int{}
			for _, ch := range tt.changes {
				want[ch.Kind]++
			}
			kinds, next, err := countFeed(append(body, '\n'))
			if err != nil || next != tt.next || !maps.Equal(kinds, want) {
				t.Fatalf("countFeed(%s) = %v, %d, %v; want %v, %d", body, kinds, next, err, want, tt.next)
			}
		})
	}
}
