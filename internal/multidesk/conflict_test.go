package multidesk_test

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/deskclient"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/serverdbtest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
	"qrdesk/server"
)

// Double uses across desks recorded as conflicts: a late online answer,
// offline uploads of one label at once. Each runs on both engines (unless
// it says otherwise) with real desks (their own SQLite files, the real sync
// code) on loopback. "Defect N" numbers the multi-desk defects found by
// trying the server as a hostile user would.

// delayed wraps a handler: when on, the answer is held back after the
// server has done the work (a slow link: the desk gives up first).
type delayed struct {
	h  http.Handler
	on atomic.Bool
	d  time.Duration
}

func (x *delayed) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !x.on.Load() {
		x.h.ServeHTTP(w, r)
		return
	}
	rec := httptest.NewRecorder()
	x.h.ServeHTTP(rec, r)
	time.Sleep(x.d)
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	w.Write(rec.Body.Bytes())
}

// Defect 3: a late answer hid a double use. The server answered
// already_used after the desk had given up and redeemed alone; the
// desk's upload under the same event id was called a duplicate.
func TestLateAnswerIsAConflict(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, _, codes := centraltest.TwoDesks(t, dbPath, 2)
		slow := &delayed{d: 600 * time.Millisecond}
		slow.h = (&server.API{Store: h.DB, Log: centraltest.Discard, Now: func() time.Time { return h.Now }}).Handler()
		srv := httptest.NewServer(slow)
		defer srv.Close()
		d := h.Desk(t, "Desk D", "D", "")
		d.Svc.Remote = deskclient.New(srv.URL, h.Station(t, "Desk D", "D"))
		d.Svc.OnlineTimeout = 150 * time.Millisecond
		d.Sync(t)
		if v := a.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A: %+v", v)
		}
		slow.on.Store(true)
		v := d.Redeem(t, codes[0], "sun") // the server says already_used, too late
		if v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk D, deciding alone after the timeout: %+v", v)
		}
		time.Sleep(slow.d) // the server has answered the online attempt by now
		slow.on.Store(false)
		d.Sync(t)
		conflicts, err := h.DB.Conflicts(context.Background(), 0, math.MaxInt64)
		if err != nil || len(conflicts) != 1 {
			t.Fatalf("conflicts %+v %v, want the double use recorded", conflicts, err)
		}
		if k := conflicts[0]; k.FirstStation != "Desk A" || k.SecondStation != "Desk D" || k.SecondEvent != v.TraceID {
			t.Fatalf("conflict %+v", k)
		}
		var result string
		d.DB.SQL().QueryRow(`SELECT result FROM outbox WHERE event_id = ?`, v.TraceID).Scan(&result)
		if !strings.Contains(result, `"conflict"`) || strings.Contains(result, "duplicate") {
			t.Fatalf("desk D's event was answered %s", result)
		}
		if n := len(h.Server(t).Events(serverdbtest.Where{EventID: v.TraceID})); n != 1 {
			t.Fatalf("the event is on the server %d times", n)
		}
		a.Sync(t)
		if k, _ := a.DB.Conflicts(context.Background()); len(k) != 1 {
			t.Fatalf("desk A knows %d conflicts, want 1", len(k))
		}
	})
}

// TestOfflineUploadsRace (found by the hostile pass): three desks upload
// offline redemptions of the same labels at once. On PostgreSQL the losing
// UPDATE waits for the winner; deciding on what was read before it called
// the losers "expired" and recorded no conflict.
func TestOfflineUploadsRace(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 30)
		tokens := []string{h.Station(t, "Desk 1", "A"), h.Station(t, "Desk 2", "B"), h.Station(t, "Desk 3", "C")}
		h.Upload(t, tokens[0])
		var mu sync.Mutex
		outcomes := map[protocol.Outcome]int{}
		for i, code := range h.Codes { // the three uploads of one label at once
			var wg sync.WaitGroup
			for d, tok := range tokens {
				wg.Add(1)
				go func() {
					defer wg.Done()
					ev := protocol.Event{EventID: fmt.Sprintf("race-d%d-%03d", d, i), Kind: "redeem", Code: code, Operator: "op", At: h.Now.Unix() + int64(d), Offline: true}
					var out struct{ Results []protocol.Result }
					h.Call(t, "POST", "/v1/events", tok, h.Ring, map[string]any{"events": []protocol.Event{ev}}, &out)
					mu.Lock()
					for _, r := range out.Results {
						outcomes[r.Outcome]++
					}
					mu.Unlock()
				}()
			}
			wg.Wait()
		}
		n := len(h.Codes)
		if outcomes["redeemed"] != n || outcomes["conflict"] != 2*n {
			t.Fatalf("outcomes %v, want %d redeemed and %d conflicts", outcomes, n, 2*n)
		}
		if k := h.Server(t).CountConflicts(); k != 2*n {
			t.Fatalf("%d conflicts recorded, want %d", k, 2*n)
		}
	})
}
