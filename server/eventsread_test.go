package server_test

import (
	"strings"
	"testing"

	"qrdesk/internal/centraltest"
	"qrdesk/internal/serverdbtest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// TestEventsRefusedAlone: an event the server cannot read is refused
// alone, clearly, and the rest of the upload is decided: an event id of
// the wrong shape (never echoed back, also for an unknown kind), a known
// field of the wrong type in an event of a known kind. An unknown kind
// whose known fields a newer protocol types otherwise is "unsupported"
// (it waits for the upgrade), and the later events of its label wait
// behind it in the same request; other labels' events are decided.
func TestEventsRefusedAlone(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 4)
		tok := h.Station(t, "Desk 1", "A")
		h.Upload(t, tok)
		ev := func(id any, kind, code string, extra map[string]any) map[string]any {
			m := map[string]any{"event_id": id, "kind": kind, "code": code, "operator": "li", "at": h.Now.Unix(), "offline": true}
			for k, v := range extra {
				m[k] = v
			}
			return m
		}
		bad := "<script>alert(1)</script>"
		var out struct{ Results []protocol.Result }
		status := h.Call(t, "POST", "/v1/events", tok, h.Ring, map[string]any{"events": []any{
			ev(bad, "teleport", h.Codes[0], nil),
			ev("event-0002", "teleport", h.Codes[1], map[string]any{"at": "tomorrow", "offline": "yes"}),
			ev("event-0003", "redeem", h.Codes[1], nil),
			ev("event-0004", "redeem", h.Codes[2], map[string]any{"at": "tomorrow"}),
			ev(12345678, "redeem", h.Codes[3], nil),
			ev("event-0006", "redeem", h.Codes[3], nil),
		}}, &out)
		if status != 200 || len(out.Results) != 6 {
			t.Fatalf("upload: %d %+v", status, out)
		}
		want := []struct {
			id      string
			outcome protocol.Outcome
			reason  string
		}{
			{"", "rejected", "event_id must be"},
			{"event-0002", protocol.OutcomeUnsupported, protocol.UnsupportedReason},
			{"event-0003", protocol.OutcomeUnsupported, protocol.HeldBehindReason},
			{"event-0004", "rejected", "malformed JSON"},
			{"", "rejected", "event_id must be a string"},
			{"event-0006", protocol.OutcomeRedeemed, ""},
		}
		for i, r := range out.Results {
			w := want[i]
			if r.EventID != w.id || r.Outcome != w.outcome || !strings.Contains(r.Reason, w.reason) {
				t.Errorf("results[%d] = %+v, want %s %s (%q)", i, r, w.id, w.outcome, w.reason)
			}
			if strings.Contains(r.EventID+r.Reason, "<script>") {
				t.Errorf("results[%d] echoes the malformed event id: %+v", i, r)
			}
		}
		if n := len(h.Server(t).Events(serverdbtest.Where{})); n != 1 {
			t.Errorf("%d events recorded, want 1 (event-0006)", n)
		}
	})
}
