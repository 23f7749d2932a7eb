package server_test

import (
	"context"
	"testing"

	"qrdesk/internal/centraltest"
	"qrdesk/internal/serverdbtest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
	"qrdesk/server"
)

// TestDecisionToldAgainAroundRevocation: a desk scans a label online and
// the network sends its request twice; the first copy is decided
// "redeemed", then the administrator revokes the desk, then the second
// copy arrives. The desk reads the second answer: it must be the first's
// decision (redeemed, a duplicate), or its clerk is told "refused" of a
// redemption the server holds, hands nothing over, and the next desk's
// customer is turned away "already used". Telling a decision again
// grants nothing new: an event not decided yet stays refused, and so does
// the same id with other content. The same holds for the outbox
// (/v1/events) and after the station's token was renewed, through the
// cached token lookup and through a fresh one, on both engines.
func TestDecisionToldAgainAroundRevocation(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 6)
		token := h.Station(t, "Desk A", "A")
		h.Upload(t, token)
		online := protocol.Event{EventID: "dup-online-0001", Code: h.Codes[0], Operator: "op", At: 1}
		offline := protocol.Event{EventID: "dup-offline-001", Kind: protocol.KindRedeem, Code: h.Codes[1], Operator: "op", At: 1, Offline: true}
		redeem := func(tok string, ev protocol.Event) (int, map[string]any) {
			var out map[string]any
			return h.Call(t, "POST", "/v1/redeem", tok, h.Ring, ev, &out), out
		}
		events := func(tok string, evs ...protocol.Event) (int, map[string]any) {
			var out map[string]any
			return h.Call(t, "POST", "/v1/events", tok, h.Ring, map[string]any{"events": evs}, &out), out
		}
		toldAgain := func(what string, st int, out map[string]any) {
			t.Helper()
			if st != 200 || out["outcome"] != "redeemed" || out["duplicate"] != true || out["used_station"] != "Desk A" {
				t.Fatalf("%s: %d %v, want 200 redeemed, a duplicate, used at Desk A", what, st, out)
			}
		}
		refused := func(what string, st int, out map[string]any, status int, code string, label int) {
			t.Helper()
			if st != status || out["code"] != code {
				t.Fatalf("%s: %d %v, want %d %s", what, st, out, status, code)
			}
			if label >= 0 && h.Server(t).CountLabel(h.Codes[label], "unused") != 1 {
				t.Fatalf("%s: label %d is no longer unused", what, label)
			}
		}

		// The first copy, before the revocation (the lookup is cached now),
		// and an outbox event.
		if st, out := redeem(token, online); st != 200 || out["outcome"] != "redeemed" || out["duplicate"] == true {
			t.Fatalf("first copy: %d %v", st, out)
		}
		if st, out := events(token, offline); st != 200 || out["results"].([]any)[0].(map[string]any)["outcome"] != "redeemed" {
			t.Fatalf("outbox: %d %v", st, out)
		}
		if err := h.DB.RevokeStation(context.Background(), "Desk A", h.Now.Unix()); err != nil {
			t.Fatal(err)
		}

		// The second copy: the station from the cache, Apply's refusal.
		st, out := redeem(token, online)
		toldAgain("second copy (cached lookup)", st, out)
		// Anything new stays refused (and the cache is dropped).
		st, out = redeem(token, protocol.Event{EventID: "new-after-rev1", Code: h.Codes[2], Operator: "op", At: 2})
		refused("a new scan of the revoked desk", st, out, 403, "revoked", 2)
		// A third copy: the lookup's refusal, the decision told again.
		st, out = redeem(token, online)
		toldAgain("third copy (fresh lookup)", st, out)
		changed := online
		changed.Operator = "someone else"
		st, out = redeem(token, changed)
		refused("the same id with other content", st, out, 403, "revoked", -1)

		// The outbox: all decided, told again; with a new event, refused.
		st, out = events(token, offline)
		if rs, _ := out["results"].([]any); st != 200 || len(rs) != 1 || rs[0].(map[string]any)["duplicate"] != true || rs[0].(map[string]any)["outcome"] != "redeemed" {
			t.Fatalf("outbox sent again: %d %v, want 200 and its redemption, a duplicate", st, out)
		}
		st, out = events(token, offline, protocol.Event{EventID: "new-after-rev2", Kind: protocol.KindRedeem, Code: h.Codes[3], Operator: "op", At: 2, Offline: true})
		refused("an outbox with a new event", st, out, 403, "revoked", 3)

		// Renewed: the old token is told its decisions, refused anything new.
		if err := h.DB.RenewStation(context.Background(), "Desk A", server.HashToken("qrd_test_renewed")); err != nil {
			t.Fatal(err)
		}
		st, out = redeem(token, online)
		toldAgain("a copy with the renewed token", st, out)
		st, out = redeem(token, protocol.Event{EventID: "new-after-ren1", Code: h.Codes[4], Operator: "op", At: 3})
		refused("a new scan with the renewed token", st, out, 401, "token_renewed", 4)
		for _, id := range []string{"new-after-rev1", "new-after-rev2", "new-after-ren1"} {
			if n := len(h.Server(t).Events(serverdbtest.Where{EventID: id})); n != 0 {
				t.Fatalf("event %s of a refused station recorded", id)
			}
		}
		st, out = redeem("qrd_test_renewed", online)
		toldAgain("a copy with the new token", st, out)
	})
}
