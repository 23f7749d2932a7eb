package server_test

import (
	"context"
	"math"
	"testing"
	"time"

	"qrdesk/internal/centraltest"
	"qrdesk/internal/serverdbtest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// Desk clocks the server does not take at their word: implausible offline
// times are flagged and decided at the server's time. Each runs on both
// engines (unless it says otherwise) with real desks (their own SQLite
// files, the real sync code) on loopback. "Defect N" numbers the multi-desk
// defects found by trying the server as a hostile user would.

// Defect 8: offline event times were taken at their word.
func TestOfflineTimeSanity(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 4)
		a, b := h.Station(t, "Desk 1", "A"), h.Station(t, "Desk 2", "B")
		h.Upload(t, a)
		now := h.Now.Unix()
		var r protocol.Result
		h.Call(t, "POST", "/v1/redeem", a, h.Ring, protocol.Event{EventID: "sane-online-1", Code: h.Codes[0], Operator: "li", At: now}, &r)
		for i, at := range []int64{5, math.MaxInt64, 1000} {
			code := h.Codes[min(i, 1)]
			var out struct{ Results []protocol.Result }
			ev := protocol.Event{EventID: "sane-offline-" + string(rune('a'+i)) + "xxxxx", Kind: "redeem", Code: code, Operator: "wang", At: at, Offline: true}
			if st := h.Call(t, "POST", "/v1/events", b, h.Ring, map[string]any{"events": []protocol.Event{ev}}, &out); st != 200 {
				t.Fatalf("at %d: status %d", at, st)
			}
		}
		srv := serverdbtest.Of(t, h.DB)
		l := srv.Label(h.Codes[0])
		usedAt, station := l.UsedAt, l.UsedStation
		if usedAt != now || station != "Desk 1" {
			t.Fatalf("an implausible time became the redemption of record: %d at %q", usedAt, station)
		}
		usedAt = srv.Label(h.Codes[1]).UsedAt
		if usedAt != now {
			t.Fatalf("redeemed offline 'at 1970' is stored at %d, want the server's time %d", usedAt, now)
		}
		day := time.Date(h.Now.Year(), h.Now.Month(), h.Now.Day(), 0, 0, 0, 0, time.Local).Unix()
		conflicts, _ := h.DB.Conflicts(context.Background(), day, day+86400)
		if len(conflicts) != 2 || conflicts[0].Flag == "" || conflicts[0].FirstStation != "Desk 1" {
			t.Fatalf("today's conflicts %+v, want both flagged with Desk 1 of record", conflicts)
		}
		flagged, err := h.DB.FlaggedEvents(context.Background(), day, day+86400)
		if err != nil || len(flagged) != 3 {
			t.Fatalf("flagged events %+v %v, want 3", flagged, err)
		}
		stored := srv.Event(serverdbtest.Where{EventID: "sane-offline-bxxxxx"}).At
		if stored != math.MaxInt64 {
			t.Fatalf("the desk's own time is not kept in the event: %d", stored)
		}
	})
}

// TestClockAt1970 (found by the second hostile pass): a desk whose clock
// went back to 1970 uploads its labels "issued" at 1970 and redeems one
// offline "at" 1970: the time is still implausible against the date
// printed in the label, so it is flagged, decided at the server's time,
// and never the redemption of record.
func TestClockAt1970(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 1)
		a, b := h.Station(t, "Desk 1", "A"), h.Station(t, "Desk 2", "B")
		var res struct{ Added int }
		h.Call(t, "POST", "/v1/batches", a, h.Ring, map[string]any{"codes": []map[string]any{{"code": h.Codes[0], "expire_at": 0, "created_at": 1000}}}, &res)
		var r protocol.Result
		h.Call(t, "POST", "/v1/redeem", b, h.Ring, protocol.Event{EventID: "online-desk2-1", Code: h.Codes[0], Operator: "wang", At: h.Now.Unix()}, &r)
		var out struct{ Results []protocol.Result }
		h.Call(t, "POST", "/v1/events", a, h.Ring, map[string]any{"events": []protocol.Event{{EventID: "offline-1970-1", Kind: "redeem", Code: h.Codes[0], Operator: "li", At: 2000, Offline: true}}}, &out)
		if len(out.Results) != 1 || out.Results[0].Outcome != "conflict" || out.Results[0].UsedStation != "Desk 2" {
			t.Fatalf("offline at 1970: %+v, want a conflict with Desk 2 of record", out.Results)
		}
		day := time.Date(h.Now.Year(), h.Now.Month(), h.Now.Day(), 0, 0, 0, 0, time.Local).Unix()
		if k, _ := h.DB.Conflicts(context.Background(), day, day+86400); len(k) != 1 || k[0].Flag == "" {
			t.Fatalf("today's conflicts %+v, want one, flagged", k)
		}
	})
}
