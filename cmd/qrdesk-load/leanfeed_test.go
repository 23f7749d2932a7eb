package main

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"

	"qrdesk/app"
)

// TestCountFeed: counting an answer of the feed gives what decoding it
// gives (the kinds, and the labels), whatever the changes' data hold.
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
				want[ch.Kind]++
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
