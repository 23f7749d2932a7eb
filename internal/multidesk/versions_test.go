package multidesk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/serverdbtest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// preVersionServer plays a server of the release before undo and before
// versions, in front of a real one: its enrol answer names the station
// only, and it refuses a whole upload that holds an undo as it did
// (`unknown field "undoes"`). Off, it passes everything (the upgrade).
type preVersionServer struct {
	next http.Handler
	on   bool
}

func (p *preVersionServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !p.on {
		p.next.ServeHTTP(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	if r.URL.Path == "/v1/events" && bytes.Contains(body, []byte(`"undoes"`)) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]string{"error": `malformed JSON: json: unknown field "undoes"`, "code": app.RefusedInvalid})
		return
	}
	if r.URL.Path != "/v1/enrol" {
		p.next.ServeHTTP(w, r)
		return
	}
	rec := httptest.NewRecorder()
	p.next.ServeHTTP(rec, r)
	var en struct{ Station, Letter, KeyRing string }
	json.Unmarshal(rec.Body.Bytes(), &en)
	w.WriteHeader(rec.Code)
	json.NewEncoder(w).Encode(map[string]string{"station": en.Station, "letter": en.Letter, "key_ring": en.KeyRing})
}

// TestNewerDeskOlderServer is issue 17's item 5: a desk newer than its
// server undoes a redemption the server cannot take (it does not know
// undo). The undo alone waits at the desk, saying so ("waits for a server
// upgrade", not "not reached"); the events queued after it and the other
// desks' changes go on; once the server is upgraded the undo is sent and
// applied. Two older servers: one that announces fewer kinds (a server
// with versions), and one from before versions (announces nothing, refuses
// an upload holding an undo whole).
func TestNewerDeskOlderServer(t *testing.T) {
	t.Parallel()
	for _, older := range []string{"fewer kinds", "before versions"} {
		t.Run(older, func(t *testing.T) {
			testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
				g := newRestorable(t, dbPath)
				proxy := &preVersionServer{}
				if older == "fewer kinds" {
					g.kinds = protocol.BaseKinds // the server from before undo
					g.serve()
				} else {
					proxy.next, proxy.on = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { (*g.handler.Load()).ServeHTTP(w, r) }), true
					srv := httptest.NewServer(proxy)
					t.Cleanup(srv.Close)
					g.URL = srv.URL
				}
				a, b := g.deskAt(t, "Desk A", "A"), g.deskAt(t, "Desk B", "B")
				ctx := context.Background()
				codes := a.Issue(t, 4)
				a.Sync(t)
				b.Sync(t)
				if v := a.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
					t.Fatalf("desk A: %+v", v)
				}
				g.Now = g.Now.Add(time.Minute)
				u := a.Undo(t, codes[0], "scanned the wrong parcel")
				if u.Server != app.UndoWaitsUpgrade || u.Status != app.StatusUnused {
					t.Fatalf("undo on an older server: server %q (%s), label %s; want %q and unused here", u.Server, u.ServerReason, u.Status, app.UndoWaitsUpgrade)
				}
				// The label handed over again here: decided at the desk (its undo
				// waits), and queued behind the undo, so it must wait with it.
				if v := a.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
					t.Fatalf("desk A, again after the undo: %+v", v)
				}
				// Queued after them: a disable; and another desk's redemption.
				if _, err := a.Svc.SetDisabled(ctx, codes[1], true, "torn label", "li"); err != nil {
					t.Fatal(err)
				}
				if v := b.Redeem(t, codes[2], "wang"); v.Outcome != app.OutcomeRedeemed {
					t.Fatalf("desk B: %+v", v)
				}
				st, err := a.Svc.Sync(ctx)
				if err != nil {
					t.Fatalf("desk A's sync with an older server: %v", err)
				}
				if st.Waiting != 2 || st.WaitingUpgrade != 2 || st.Rejected != 0 {
					t.Fatalf("desk A's sync: %+v, want the undo and the label's next redemption waiting for the upgrade", st)
				}
				if status, _ := g.Server(t).StatusAndStation(codes[1]); status != "disabled" {
					t.Fatalf("the disable queued after the undo did not go: the server has %s", status)
				}
				if a.Status(t, codes[2]) != app.StatusUsed {
					t.Fatal("desk A stopped downloading the other desks' changes")
				}
				if status, _ := g.Server(t).StatusAndStation(codes[0]); status != "used" {
					t.Fatalf("the older server has %s %s", codes[0], status)
				}
				if n := len(g.Server(t).Events(serverdbtest.Where{Code: codes[0]})); n != 1 {
					t.Fatalf("the server has %d events of %s, want 1: the label's events after the undo must wait with it", n, codes[0])
				}

				// The server is upgraded: the undo goes at the next sync.
				g.kinds, proxy.on = nil, false
				g.serve()
				if st, err = a.Svc.Sync(ctx); err != nil || st.Waiting != 0 || st.WaitingUpgrade != 0 {
					t.Fatalf("desk A's sync after the upgrade: %+v %v", st, err)
				}
				if n := centraltest.Count(t, g.DB, `SELECT count(*) FROM events WHERE code = ? AND kind = 'undo' AND outcome = 'undone'`, codes[0]); n != 1 {
					t.Fatalf("after the upgrade the server has %d undos of %s applied, want 1", n, codes[0])
				}
				if status, _ := g.Server(t).StatusAndStation(codes[0]); status != "used" || g.Server(t).CountConflicts() != 0 {
					t.Fatalf("after the upgrade the server has %s %s and %d conflicts, want used again (the second redemption after the undo), no conflict",
						codes[0], status, g.Server(t).CountConflicts())
				}
				if got, err := a.DB.UndoResult(ctx, u.EventID); err != nil || got.Server != "undone" {
					t.Fatalf("the undo after the upgrade: %+v %v", got, err)
				}
				b.Sync(t)
				h := *g.Harness
				sameState(t, &h, "A", a.Desk)
				sameState(t, &h, "B", b.Desk)
			})
		})
	}
}

// TestUnknownKindAnsweredAlone: a server answers an event of a kind it does
// not know, or with a field it does not read, "unsupported" with a clear
// reason, alone, unrecorded; the other events of the upload are decided.
// The enrol answer says the protocol, the kinds and the station's write
// counter; every answer carries the protocol header.
func TestUnknownKindAnsweredAlone(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 3)
		tok := h.Station(t, "Desk 1", "A")
		h.Upload(t, tok)
		ev := func(id, kind, code string, extra map[string]any) map[string]any {
			m := map[string]any{"event_id": id, "kind": kind, "code": code, "operator": "li", "at": h.Now.Unix(), "offline": true}
			for k, v := range extra {
				m[k] = v
			}
			return m
		}
		var out struct{ Results []protocol.Result }
		status := h.Call(t, "POST", "/v1/events", tok, h.Ring, map[string]any{"events": []any{
			ev("event-0001", "redeem", h.Codes[0], nil),
			ev("event-0002", "teleport", h.Codes[1], map[string]any{"destination": "moon"}),
			ev("event-0003", "redeem", h.Codes[1], map[string]any{"new_field": 1}),
			ev("event-0004", "disable", h.Codes[2], map[string]any{"reason": "torn label"}),
		}}, &out)
		if status != 200 || len(out.Results) != 4 {
			t.Fatalf("upload: %d %+v", status, out)
		}
		want := []protocol.Outcome{protocol.OutcomeRedeemed, protocol.OutcomeUnsupported, protocol.OutcomeUnsupported, protocol.OutcomeDisabled}
		for i, r := range out.Results {
			if r.Outcome != want[i] || r.EventID != []string{"event-0001", "event-0002", "event-0003", "event-0004"}[i] {
				t.Errorf("results[%d] = %+v, want %s", i, r, want[i])
			}
		}
		if r := out.Results[1]; r.Reason != protocol.UnsupportedReason || r.Write != 0 {
			t.Errorf("unsupported: %+v, want the reason %q and no write number", r, protocol.UnsupportedReason)
		}
		if out.Results[0].Write != 2 || out.Results[3].Write != 3 { // 1: the batch
			t.Errorf("write numbers %d, %d, want 2 and 3 (1 is the batch)", out.Results[0].Write, out.Results[3].Write)
		}
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM events WHERE event_id IN ('event-0002', 'event-0003')`); n != 0 {
			t.Errorf("%d unsupported events recorded", n)
		}

		// A server that knows fewer kinds: an undo is unsupported.
		h.API.Kinds = protocol.BaseKinds
		status = h.Call(t, "POST", "/v1/events", tok, h.Ring, map[string]any{"events": []any{
			ev("event-0005", "undo", h.Codes[0], map[string]any{"undoes": "event-0001"}),
		}}, &out)
		if status != 200 || len(out.Results) != 1 || out.Results[0].Outcome != protocol.OutcomeUnsupported {
			t.Fatalf("undo to a server without undo: %d %+v", status, out)
		}
		h.API.Kinds = nil

		var en protocol.Enrolment
		if status := h.Call(t, "POST", "/v1/enrol", tok, h.Ring, map[string]any{}, &en); status != 200 {
			t.Fatalf("enrol: %d", status)
		}
		if en.Protocol != protocol.Version || !protocol.KnowsKind(en.Kinds, protocol.KindUndo) || en.Writes == nil || *en.Writes != 3 {
			t.Fatalf("enrol answer %+v (writes %v), want protocol %d, undo among the kinds, writes 3", en, en.Writes, protocol.Version)
		}
		req, _ := http.NewRequest("GET", h.URL+"/v1/health", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get(protocol.Header); got != strconv.Itoa(protocol.Version) {
			t.Fatalf("%s: %q, want %d", protocol.Header, got, protocol.Version)
		}
	})
}
