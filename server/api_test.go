package server_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"qrdesk/internal/centraltest"
	"qrdesk/internal/serverdbtest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
	"qrdesk/server"
	"qrdesk/serverdb"
)

func TestCentralRedeemOnceAcrossStations(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 20)
		a, b := h.Station(t, "Desk 1", "A"), h.Station(t, "Desk 2", "B")
		h.Upload(t, a)
		// Uploading again is a no-op.
		var again struct{ Added int }
		h.Call(t, "POST", "/v1/batches", a, h.Ring, map[string]any{"codes": []map[string]any{{"code": h.Codes[0]}}}, &again)
		if again.Added != 0 {
			t.Fatalf("re-upload added %d", again.Added)
		}
		// 40 concurrent online redemptions of one code from two stations.
		var wg sync.WaitGroup
		var mu sync.Mutex
		outcomes := map[protocol.Outcome]int{}
		for i := 0; i < 40; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				tok := a
				if i%2 == 1 {
					tok = b
				}
				var r protocol.Result
				h.Call(t, "POST", "/v1/redeem", tok, h.Ring, protocol.Event{EventID: fmt.Sprintf("race-event-%03d", i), Code: h.Codes[0], Operator: "op", At: h.Now.Unix()}, &r)
				mu.Lock()
				outcomes[r.Outcome]++
				mu.Unlock()
			}()
		}
		wg.Wait()
		if outcomes["redeemed"] != 1 || outcomes["already_used"] != 39 {
			t.Fatalf("outcomes %v, want one redeemed", outcomes)
		}
		// The same event sent twice is answered the same, once.
		var r1, r2 protocol.Result
		ev := protocol.Event{EventID: "dup-event-0001", Code: h.Codes[1], Operator: "li", At: h.Now.Unix()}
		h.Call(t, "POST", "/v1/redeem", a, h.Ring, ev, &r1)
		h.Call(t, "POST", "/v1/redeem", a, h.Ring, ev, &r2)
		if r1.Outcome != "redeemed" || r2.Outcome != "redeemed" || !r2.Duplicate {
			t.Fatalf("sent twice: %+v then %+v", r1, r2)
		}
		var feed struct {
			Changes []protocol.Change
			Next    int64
		}
		h.Call(t, "GET", "/v1/changes?after=0", b, h.Ring, nil, &feed)
		redeems := 0
		for _, c := range feed.Changes {
			if c.Kind == "redeem" {
				redeems++
			}
		}
		if len(feed.Changes) != len(h.Codes)+2 || redeems != 2 {
			t.Fatalf("feed: %d changes, %d redemptions", len(feed.Changes), redeems)
		}
		var rest struct{ Changes []protocol.Change }
		h.Call(t, "GET", fmt.Sprintf("/v1/changes?after=%d", feed.Next), b, h.Ring, nil, &rest)
		if len(rest.Changes) != 0 {
			t.Fatalf("after the cursor: %d changes", len(rest.Changes))
		}
	})
}

func TestCentralOfflineConflict(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 20)
		a, b := h.Station(t, "Desk 1", "A"), h.Station(t, "Desk 2", "B")
		h.Upload(t, a)
		code := h.Codes[2]
		at := h.Now.Unix()
		// Both desks redeemed the code while offline; Desk 2 (+2 min) uploads
		// first, Desk 1 (+1 min) later: Desk 1's is the redemption of record.
		var r2, r1 struct{ Results []protocol.Result }
		h.Call(t, "POST", "/v1/events", b, h.Ring, map[string]any{"events": []protocol.Event{{EventID: "offline-desk2-1", Kind: "redeem", Code: code, Operator: "wang", At: at + 120, Offline: true}}}, &r2)
		h.Call(t, "POST", "/v1/events", a, h.Ring, map[string]any{"events": []protocol.Event{{EventID: "offline-desk1-1", Kind: "redeem", Code: code, Operator: "li", At: at + 60, Offline: true}}}, &r1)
		if r2.Results[0].Outcome != "redeemed" || r1.Results[0].Outcome != "conflict" || r1.Results[0].UsedStation != "Desk 1" {
			t.Fatalf("results %+v / %+v", r2.Results, r1.Results)
		}
		conflicts, err := h.DB.Conflicts(context.Background(), at, at+86400)
		if err != nil || len(conflicts) != 1 {
			t.Fatalf("conflicts %+v %v", conflicts, err)
		}
		k := conflicts[0]
		if k.FirstStation != "Desk 1" || k.FirstAt != at+60 || k.SecondStation != "Desk 2" || k.SecondOperator != "wang" || k.Flag != "" {
			t.Fatalf("conflict %+v", k)
		}
		// Uploading the same events again changes nothing.
		h.Call(t, "POST", "/v1/events", a, h.Ring, map[string]any{"events": []protocol.Event{{EventID: "offline-desk1-1", Kind: "redeem", Code: code, Operator: "li", At: at + 60, Offline: true}}}, &r1)
		if !r1.Results[0].Duplicate {
			t.Fatalf("re-sent event: %+v", r1.Results[0])
		}
		if again, _ := h.DB.Conflicts(context.Background(), at, at+86400); len(again) != 1 {
			t.Fatalf("%d conflicts after a re-send", len(again))
		}
	})
}

// TestCentralRefusals: no token, wrong token, revoked token, another key
// ring, a garbage key ring, oversized body, malformed JSON, trailing data,
// SQL metacharacters: each refused with the right status and code, and
// nothing changed.
func TestCentralRefusals(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 20)
		a := h.Station(t, "Desk 1", "A")
		h.Upload(t, a)
		gone := h.Station(t, "Old desk", "")
		h.DB.RevokeStation(context.Background(), "Old desk", 2)
		ev := protocol.Event{EventID: "refusal-event-1", Code: h.Codes[3], Operator: "li", At: h.Now.Unix()}
		for _, tc := range []struct {
			name, token, ring string
			body              any
			status            int
			code, say         string
		}{
			{"NoToken", "", h.Ring, ev, 401, "unknown_token", "bearer"},
			{"WrongToken", "qrd_nope", h.Ring, ev, 401, "unknown_token", "unknown"},
			{"RevokedToken", gone, h.Ring, ev, 403, "revoked", "revoked"},
			{"OtherKeyRing", a, "0123456789abcdef", ev, 409, "wrong_key_ring", "key ring"},
			{"GarbageKeyRing", a, strings.Repeat("Z", 60<<10), ev, 400, "invalid", "key ring"},
			{"MalformedJSON", a, h.Ring, `{"event_id": `, 400, "invalid", "malformed JSON"},
			{"UnknownField", a, h.Ring, `{"event_id": "abcdefgh1", "drop": 1}`, 400, "invalid", "malformed JSON"},
			{"TrailingData", a, h.Ring, `{"event_id": "abcdefgh1", "code": "` + h.Codes[3] + `", "at": 5} {"x": 1}`, 400, "invalid", "after the JSON"},
			{"BadCode", a, h.Ring, protocol.Event{EventID: "refusal-event-2", Code: "'; DROP TABLE codes; --", At: 5}, 400, "invalid", "not a code"},
			{"BadEventID", a, h.Ring, protocol.Event{EventID: "x' OR '1'='1", Code: h.Codes[3], At: 5}, 400, "invalid", "event_id"},
			{"Oversized", a, h.Ring, `{"event_id": "` + strings.Repeat("a", server.MaxBody) + `"}`, 413, "invalid", "over"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				var out struct{ Error, Code string }
				st := h.Call(t, "POST", "/v1/redeem", tc.token, tc.ring, tc.body, &out)
				if st != tc.status || out.Code != tc.code || !strings.Contains(out.Error, tc.say) {
					t.Fatalf("status %d %q %q, want %d %q mentioning %q", st, out.Code, out.Error, tc.status, tc.code, tc.say)
				}
			})
		}
		var r protocol.Result
		h.Call(t, "POST", "/v1/redeem", a, h.Ring, ev, &r)
		if r.Outcome != "redeemed" {
			t.Fatalf("after the refusals the code is not intact: %+v", r)
		}
		if ring, _ := h.DB.RingID(context.Background()); ring != h.Ring {
			t.Fatalf("the deployment's ring is %q, want %q", ring, h.Ring)
		}
		var health struct{ Status string }
		if st := h.Call(t, "GET", "/v1/health", "", "", nil, &health); st != 200 || health.Status != "ok" {
			t.Fatalf("health %d %+v", st, health)
		}
	})
}

// TestTwoServersOneDatabase: two server instances, each with its own
// connection pool, on one database (as behind a load balancer); 50 desks
// redeem one code through either: exactly one wins.
func TestTwoServersOneDatabase(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		path := dbPath(t)
		h := centraltest.New(t, func(testing.TB) string { return path }, 20)
		token := h.Station(t, "Desk 1", "A")
		h.Upload(t, token)
		second, err := serverdb.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		defer second.Close()
		srv2 := httptest.NewServer((&server.API{Store: second, Log: slog.New(slog.DiscardHandler), Now: func() time.Time { return h.Now }}).Handler())
		defer srv2.Close()
		urls := []string{h.URL, srv2.URL}
		var wg sync.WaitGroup
		var mu sync.Mutex
		outcomes := map[protocol.Outcome]int{}
		for i := 0; i < 50; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				hh := *h
				hh.URL = urls[i%2]
				var r protocol.Result
				hh.Call(t, "POST", "/v1/redeem", token, h.Ring, protocol.Event{EventID: fmt.Sprintf("two-servers-%03d", i), Code: h.Codes[5], Operator: "op", At: 1}, &r)
				mu.Lock()
				outcomes[r.Outcome]++
				mu.Unlock()
			}()
		}
		wg.Wait()
		if outcomes["redeemed"] != 1 || outcomes["already_used"] != 49 {
			t.Fatalf("outcomes %v, want exactly one redeemed", outcomes)
		}
	})
}

// TestCentralClockSkew: two desks redeem the same label offline, one with a
// clock five minutes fast, the other five minutes slow (within tolerance),
// uploading in either order: one redemption of record (the earlier
// clock), one conflict, both facts kept, nothing lost.
func TestCentralClockSkew(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 20)
		a, b := h.Station(t, "Fast desk", "A"), h.Station(t, "Slow desk", "B")
		h.Upload(t, a)
		now := h.Now.Unix()
		for i, order := range [][]string{{a, b}, {b, a}} {
			code := h.Codes[10+i]
			evs := map[string]protocol.Event{
				a: {EventID: fmt.Sprintf("skew-fast-%d", i), Kind: "redeem", Code: code, Operator: "f", At: now + 300, Offline: true},
				b: {EventID: fmt.Sprintf("skew-slow-%d", i), Kind: "redeem", Code: code, Operator: "s", At: now - 300, Offline: true},
			}
			for _, tok := range order {
				var out struct{ Results []protocol.Result }
				h.Call(t, "POST", "/v1/events", tok, h.Ring, map[string]any{"events": []protocol.Event{evs[tok]}}, &out)
				if len(out.Results) != 1 || (out.Results[0].Outcome != "redeemed" && out.Results[0].Outcome != "conflict") {
					t.Fatalf("order %d: %+v", i, out.Results)
				}
			}
			n := h.Server(t).Conflicts()[code]
			station := serverdbtest.Of(t, h.DB).Label(code).UsedStation
			if n != 1 || station != "Slow desk" {
				t.Fatalf("order %d: %d conflicts, used at %q; want 1 and the earlier clock (Slow desk)", i, n, station)
			}
		}
	})
}
