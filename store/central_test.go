package store

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/internal/testpg"
	"qrdesk/server"
)

// centralHarness is a real server on loopback over a real SQLite file, and
// the codes of one station's batch.
type centralHarness struct {
	url   string
	db    *CentralDB
	ring  string
	codes []string
	now   func() time.Time // the server's and the station's clock
}

// engines runs a test against both storage engines of the server.
func engines(t *testing.T, test func(t *testing.T, dbPath func(t *testing.T) string)) {
	t.Run("SQLite", func(t *testing.T) {
		test(t, func(t *testing.T) string { return filepath.Join(t.TempDir(), "server.db") })
	})
	t.Run("PostgreSQL", func(t *testing.T) { test(t, func(t *testing.T) string { return testpg.URL(t) }) })
}

func newCentral(t *testing.T, dbPath func(t *testing.T) string) *centralHarness {
	t.Helper()
	return newCentralAt(t, dbPath(t), 20)
}

// newCentralAt serves the database at path and issues n codes at a station.
func newCentralAt(t testing.TB, path string, n int) *centralHarness {
	t.Helper()
	db, err := OpenCentral(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	svc, _, clock := mustOpen(t)
	api := &server.API{Store: db, Log: slog.New(slog.DiscardHandler), Now: clock.Now}
	srv := httptest.NewServer(api.Handler())
	t.Cleanup(srv.Close)
	svc.UpdateSettings(context.Background(), map[string]string{"serial_digits": "6"}, "test")
	_, codes := mustIssue(t, svc, app.IssueRequest{Count: n})
	h := &centralHarness{url: srv.URL, db: db, ring: svc.Keys.RingID(), now: clock.Now}
	for _, c := range codes {
		h.codes = append(h.codes, c.String())
	}
	return h
}

func (h *centralHarness) station(t *testing.T, name string) string {
	t.Helper()
	token := "qrd_test_" + name
	if err := h.db.AddStation(context.Background(), name, server.HashToken(token), 1); err != nil {
		t.Fatal(err)
	}
	return token
}

// call sends one request and decodes the JSON answer.
func (h *centralHarness) call(t testing.TB, method, path, token, ring string, body any, out any) int {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		data, _ := json.Marshal(b)
		rd = bytes.NewReader(data)
	}
	req, _ := http.NewRequest(method, h.url+path, rd)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if ring != "" {
		req.Header.Set(server.RingHeader, ring)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if out != nil {
		json.NewDecoder(resp.Body).Decode(out)
	}
	return resp.StatusCode
}

func (h *centralHarness) upload(t testing.TB, token string) {
	t.Helper()
	var codes []map[string]any
	for _, c := range h.codes {
		codes = append(codes, map[string]any{"code": c, "expire_at": 0, "created_at": 1})
	}
	var res struct{ Added int }
	if st := h.call(t, "POST", "/v1/batches", token, h.ring, map[string]any{"codes": codes}, &res); st != 200 || res.Added != len(codes) {
		t.Fatalf("upload: %d %+v", st, res)
	}
}

func TestCentralRedeemOnceAcrossStations(t *testing.T) {
	engines(t, func(t *testing.T, dbPath func(t *testing.T) string) {
		h := newCentral(t, dbPath)
		a, b := h.station(t, "Desk 1"), h.station(t, "Desk 2")
		h.upload(t, a)
		// Uploading again is a no-op.
		var again struct{ Added int }
		h.call(t, "POST", "/v1/batches", b, h.ring, map[string]any{"codes": []map[string]any{{"code": h.codes[0]}}}, &again)
		if again.Added != 0 {
			t.Fatalf("re-upload added %d", again.Added)
		}
		// 40 concurrent online redemptions of one code from two stations.
		var wg sync.WaitGroup
		var mu sync.Mutex
		outcomes := map[string]int{}
		for i := 0; i < 40; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				tok := a
				if i%2 == 1 {
					tok = b
				}
				var r server.Result
				h.call(t, "POST", "/v1/redeem", tok, h.ring, server.Event{EventID: fmt.Sprintf("race-event-%03d", i), Code: h.codes[0], Operator: "op", At: h.now().Unix()}, &r)
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
		var r1, r2 server.Result
		ev := server.Event{EventID: "dup-event-0001", Code: h.codes[1], Operator: "li", At: h.now().Unix()}
		h.call(t, "POST", "/v1/redeem", a, h.ring, ev, &r1)
		h.call(t, "POST", "/v1/redeem", a, h.ring, ev, &r2)
		if r1.Outcome != "redeemed" || r2.Outcome != "redeemed" || !r2.Duplicate {
			t.Fatalf("sent twice: %+v then %+v", r1, r2)
		}
		var feed struct {
			Changes []server.Change
			Next    int64
		}
		h.call(t, "GET", "/v1/changes?after=0", b, h.ring, nil, &feed)
		redeems := 0
		for _, c := range feed.Changes {
			if c.Kind == "redeem" {
				redeems++
			}
		}
		if len(feed.Changes) != len(h.codes)+2 || redeems != 2 {
			t.Fatalf("feed: %d changes, %d redemptions", len(feed.Changes), redeems)
		}
		var rest struct{ Changes []server.Change }
		h.call(t, "GET", fmt.Sprintf("/v1/changes?after=%d", feed.Next), b, h.ring, nil, &rest)
		if len(rest.Changes) != 0 {
			t.Fatalf("after the cursor: %d changes", len(rest.Changes))
		}
	})
}

func TestCentralOfflineConflict(t *testing.T) {
	engines(t, func(t *testing.T, dbPath func(t *testing.T) string) {
		h := newCentral(t, dbPath)
		a, b := h.station(t, "Desk 1"), h.station(t, "Desk 2")
		h.upload(t, a)
		code := h.codes[2]
		// Both desks redeemed the code while offline; Desk 2 (10:02) uploads
		// first, Desk 1 (10:01) later: Desk 1's is the redemption of record.
		var r2, r1 struct{ Results []server.Result }
		h.call(t, "POST", "/v1/events", b, h.ring, map[string]any{"events": []server.Event{{EventID: "offline-desk2-1", Kind: "redeem", Code: code, Operator: "wang", At: 1000120, Offline: true}}}, &r2)
		h.call(t, "POST", "/v1/events", a, h.ring, map[string]any{"events": []server.Event{{EventID: "offline-desk1-1", Kind: "redeem", Code: code, Operator: "li", At: 1000060, Offline: true}}}, &r1)
		if r2.Results[0].Outcome != "redeemed" || r1.Results[0].Outcome != "conflict" || r1.Results[0].UsedStation != "Desk 1" {
			t.Fatalf("results %+v / %+v", r2.Results, r1.Results)
		}
		conflicts, err := h.db.Conflicts(context.Background(), 0, 2_000_000)
		if err != nil || len(conflicts) != 1 {
			t.Fatalf("conflicts %+v %v", conflicts, err)
		}
		k := conflicts[0]
		if k.FirstStation != "Desk 1" || k.FirstAt != 1000060 || k.SecondStation != "Desk 2" || k.SecondOperator != "wang" {
			t.Fatalf("conflict %+v", k)
		}
		// Uploading the same events again changes nothing.
		h.call(t, "POST", "/v1/events", a, h.ring, map[string]any{"events": []server.Event{{EventID: "offline-desk1-1", Kind: "redeem", Code: code, Operator: "li", At: 1000060, Offline: true}}}, &r1)
		if !r1.Results[0].Duplicate {
			t.Fatalf("re-sent event: %+v", r1.Results[0])
		}
		if again, _ := h.db.Conflicts(context.Background(), 0, 2_000_000); len(again) != 1 {
			t.Fatalf("%d conflicts after a re-send", len(again))
		}
	})
}

// TestCentralRefusals: no token, wrong token, revoked token, another key
// ring, oversized body, malformed JSON, SQL metacharacters: each refused
// with the right status and nothing changed.
func TestCentralRefusals(t *testing.T) {
	engines(t, func(t *testing.T, dbPath func(t *testing.T) string) {
		h := newCentral(t, dbPath)
		a := h.station(t, "Desk 1")
		h.upload(t, a)
		gone := h.station(t, "Old desk")
		h.db.RevokeStation(context.Background(), "Old desk", 2)
		ev := server.Event{EventID: "refusal-event-1", Code: h.codes[3], Operator: "li", At: 5}
		for _, tc := range []struct {
			name, token, ring string
			body              any
			status            int
			say               string
		}{
			{"NoToken", "", h.ring, ev, 401, "bearer"},
			{"WrongToken", "qrd_nope", h.ring, ev, 401, "unknown"},
			{"RevokedToken", gone, h.ring, ev, 401, "revoked"},
			{"OtherKeyRing", a, "0123456789abcdef", ev, 409, "key ring"},
			{"MalformedJSON", a, h.ring, `{"event_id": `, 400, "malformed JSON"},
			{"UnknownField", a, h.ring, `{"event_id": "abcdefgh1", "drop": 1}`, 400, "malformed JSON"},
			{"BadCode", a, h.ring, server.Event{EventID: "refusal-event-2", Code: "'; DROP TABLE codes; --", At: 5}, 400, "not a code"},
			{"BadEventID", a, h.ring, server.Event{EventID: "x' OR '1'='1", Code: h.codes[3], At: 5}, 400, "event_id"},
			{"Oversized", a, h.ring, `{"event_id": "` + strings.Repeat("a", server.MaxBody) + `"}`, 413, "over"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				var out struct{ Error string }
				st := h.call(t, "POST", "/v1/redeem", tc.token, tc.ring, tc.body, &out)
				if st != tc.status || !strings.Contains(out.Error, tc.say) {
					t.Fatalf("status %d %q, want %d mentioning %q", st, out.Error, tc.status, tc.say)
				}
			})
		}
		var r server.Result
		h.call(t, "POST", "/v1/redeem", a, h.ring, ev, &r)
		if r.Outcome != "redeemed" {
			t.Fatalf("after the refusals the code is not intact: %+v", r)
		}
		var health struct{ Status string }
		if st := h.call(t, "GET", "/v1/health", "", "", nil, &health); st != 200 || health.Status != "ok" {
			t.Fatalf("health %d %+v", st, health)
		}
	})
}

// TestTwoServersOneDatabase: two server instances, each with its own
// connection pool, on one database (as behind a load balancer); 50 desks
// redeem one code through either: exactly one wins.
func TestTwoServersOneDatabase(t *testing.T) {
	engines(t, func(t *testing.T, dbPath func(t *testing.T) string) {
		h := newCentral(t, dbPath)
		token := h.station(t, "Desk 1")
		h.upload(t, token)
		second, err := OpenCentral(context.Background(), h.db.path)
		if err != nil {
			t.Fatal(err)
		}
		defer second.Close()
		srv2 := httptest.NewServer((&server.API{Store: second, Log: slog.New(slog.DiscardHandler), Now: h.now}).Handler())
		defer srv2.Close()
		urls := []string{h.url, srv2.URL}
		var wg sync.WaitGroup
		var mu sync.Mutex
		outcomes := map[string]int{}
		for i := 0; i < 50; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				hh := *h
				hh.url = urls[i%2]
				var r server.Result
				hh.call(t, "POST", "/v1/redeem", token, h.ring, server.Event{EventID: fmt.Sprintf("two-servers-%03d", i), Code: h.codes[5], Operator: "op", At: 1}, &r)
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

// TestCentralSharedStationLetter: two stations issuing with the same
// station letter on the same day would print the same serials; the second
// upload is refused with the fix in the message.
func TestCentralSharedStationLetter(t *testing.T) {
	engines(t, func(t *testing.T, dbPath func(t *testing.T) string) {
		h := newCentral(t, dbPath)
		a, b := h.station(t, "Desk 1"), h.station(t, "Desk 2")
		h.upload(t, a)
		other := newCentralAt(t, filepath.Join(t.TempDir(), "unused.db"), 3) // another station's codes, same letter A, same day
		var out struct{ Error string }
		var codes []map[string]any
		for _, c := range other.codes {
			codes = append(codes, map[string]any{"code": c})
		}
		if st := h.call(t, "POST", "/v1/batches", b, h.ring, map[string]any{"codes": codes}, &out); st != 400 || !strings.Contains(out.Error, "station letter") {
			t.Fatalf("shared station letter: %d %q", st, out.Error)
		}
	})
}

// TestCentralClockSkew: two desks redeem the same label offline, one with a
// clock an hour fast, the other a day slow, uploading in either order:
// one redemption of record, one conflict, both facts kept, nothing lost.
func TestCentralClockSkew(t *testing.T) {
	engines(t, func(t *testing.T, dbPath func(t *testing.T) string) {
		h := newCentral(t, dbPath)
		a, b := h.station(t, "Fast desk"), h.station(t, "Slow desk")
		h.upload(t, a)
		now := h.now().Unix()
		for i, order := range [][]string{{a, b}, {b, a}} {
			code := h.codes[10+i]
			evs := map[string]server.Event{
				a: {EventID: fmt.Sprintf("skew-fast-%d", i), Kind: "redeem", Code: code, Operator: "f", At: now + 3600, Offline: true},
				b: {EventID: fmt.Sprintf("skew-slow-%d", i), Kind: "redeem", Code: code, Operator: "s", At: now - 86400, Offline: true},
			}
			for _, tok := range order {
				var out struct{ Results []server.Result }
				h.call(t, "POST", "/v1/events", tok, h.ring, map[string]any{"events": []server.Event{evs[tok]}}, &out)
				if len(out.Results) != 1 || (out.Results[0].Outcome != "redeemed" && out.Results[0].Outcome != "conflict") {
					t.Fatalf("order %d: %+v", i, out.Results)
				}
			}
			var n int
			h.db.SQLForTests().QueryRow(h.db.q(`SELECT count(*) FROM conflicts WHERE code = ?`), code).Scan(&n)
			var station string
			h.db.SQLForTests().QueryRow(h.db.q(`SELECT used_station FROM codes WHERE code = ?`), code).Scan(&station)
			if n != 1 || station != "Slow desk" {
				t.Fatalf("order %d: %d conflicts, used at %q; want 1 and the earlier clock (Slow desk)", i, n, station)
			}
		}
	})
}
