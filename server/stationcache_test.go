package server_test

import (
	"context"
	"fmt"
	"testing"

	"qrdesk/internal/centraltest"
	"qrdesk/internal/serverdbtest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
	"qrdesk/server"
)

// TestRevocationBeatsTheTokenCache: /v1/redeem may take the desk's station
// from a cache of token lookups, but a desk revoked, or given a new token,
// a moment after its last redemption redeems nothing more: the refusal is
// the one the desk would get without the cache, and the label stays
// unused, on both engines.
func TestRevocationBeatsTheTokenCache(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 4)
		token := h.Station(t, "Desk 1", "A")
		h.Upload(t, token)
		redeem := func(token string, i int) (int, map[string]any) {
			var out map[string]any
			st := h.Call(t, "POST", "/v1/redeem", token, h.Ring, protocol.Event{EventID: fmt.Sprintf("cache-%04d", i), Code: h.Codes[i], Operator: "op", At: 1}, &out)
			return st, out
		}
		unused := func(i int) {
			t.Helper()
			if n := h.Server(t).CountLabel(h.Codes[i], "unused"); n != 1 {
				t.Fatalf("code %d is no longer unused", i)
			}
			if n := len(h.Server(t).Events(serverdbtest.Where{Code: h.Codes[i]})); n != 0 {
				t.Fatalf("code %d: %d events recorded for a refused station", i, n)
			}
		}
		if st, out := redeem(token, 0); st != 200 || out["outcome"] != "redeemed" { // the lookup is cached now
			t.Fatalf("first redemption: %d %v", st, out)
		}

		// A new token: the old one is refused at once, as renewed.
		if err := h.DB.RenewStation(context.Background(), "Desk 1", server.HashToken("qrd_test_renewed")); err != nil {
			t.Fatal(err)
		}
		if st, out := redeem(token, 1); st != 401 || out["code"] != "token_renewed" {
			t.Fatalf("old token after renew: %d %v, want 401 token_renewed", st, out)
		}
		unused(1)
		if st, out := redeem("qrd_test_renewed", 1); st != 200 || out["outcome"] != "redeemed" {
			t.Fatalf("new token: %d %v", st, out)
		}

		// Revoked: refused at once, though the lookup was just cached.
		if err := h.DB.RevokeStation(context.Background(), "Desk 1", h.Now.Unix()); err != nil {
			t.Fatal(err)
		}
		if st, out := redeem("qrd_test_renewed", 2); st != 403 || out["code"] != "revoked" {
			t.Fatalf("after revoke: %d %v, want 403 revoked", st, out)
		}
		unused(2)
	})
}
