package server_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/central"
	"qrdesk/internal/testpg"
	"qrdesk/server"
)

// Each test here is one of the multi-desk defects found by trying the
// server as a hostile user would; each runs on both engines with real
// desks (their own SQLite files, the real sync code) on loopback.

func (d *desk) redeem(t testing.TB, code, operator string) app.Verdict {
	t.Helper()
	v, err := d.svc.Redeem(context.Background(), code, operator)
	if err != nil {
		t.Fatalf("redeem %s: %v", code, err)
	}
	return v
}

func (d *desk) sync(t testing.TB) {
	t.Helper()
	if _, err := d.svc.Sync(context.Background()); err != nil {
		t.Fatalf("sync: %v", err)
	}
}

func (d *desk) issue(t testing.TB, n int) []string {
	t.Helper()
	_, codes, err := d.svc.Issue(context.Background(), app.IssueRequest{Count: n})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(codes))
	for i, c := range codes {
		out[i] = c.String()
	}
	return out
}

func (d *desk) count(t testing.TB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := d.db.SQL().QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// twoDesks enrols desks A and B, issues codes at A and syncs both.
func twoDesks(t *testing.T, dbPath func(t testing.TB) string, n int) (*centralHarness, *desk, *desk, []string) {
	h := newCentral(t, dbPath, 0)
	a := h.desk(t, "Desk A", "A", h.station(t, "Desk A", "A"))
	b := h.desk(t, "Desk B", "B", h.station(t, "Desk B", "B"))
	codes := a.issue(t, n)
	a.sync(t)
	b.sync(t)
	return h, a, b, codes
}

// Defect 1: a server refusal was taken for "offline". A revoked desk, or
// one with another key ring, redeemed alone a label used elsewhere.
func TestRefusedDeskDecidesNothingAlone(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, codes := twoDesks(t, dbPath, 4)
		if v := a.redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A: %+v", v)
		}
		if err := h.db.RevokeStation(context.Background(), "Desk B", h.now.Unix()); err != nil {
			t.Fatal(err)
		}
		for _, code := range codes[:2] { // used at A; unused
			v := b.redeem(t, code, "wang")
			if v.Outcome != app.OutcomeServerRefused || !strings.Contains(v.Reason, "revoked") {
				t.Fatalf("revoked desk B, %s: %+v, want server_refused saying revoked", code, v)
			}
		}
		if r := b.svc.DeskRefused(); r == nil || r.Code != app.RefusedRevoked {
			t.Fatalf("desk B does not know it is revoked: %+v", r)
		}
		if n := b.count(t, `SELECT count(*) FROM outbox`); n != 0 {
			t.Fatalf("revoked desk B queued %d events: it decided alone", n)
		}
		if n := b.count(t, `SELECT count(*) FROM codes WHERE status = 'used'`); n != 0 {
			t.Fatalf("revoked desk B has %d used codes", n)
		}
		if n := b.count(t, `SELECT count(*) FROM scans WHERE outcome = 'server_refused'`); n != 2 {
			t.Fatalf("%d refused scans logged, want 2", n)
		}
		if n := count(t, h.db, `SELECT count(*) FROM codes WHERE code = ? AND status = 'unused'`, codes[1]); n != 1 {
			t.Fatal("the unused label changed on the server")
		}
		var sr *app.ServerRefusal
		if _, err := b.svc.Sync(context.Background()); !errors.As(err, &sr) || sr.Code != app.RefusedRevoked {
			t.Fatalf("sync of a revoked desk: %v", err)
		}

		// Its events made before the revocation wait for a new token, and
		// are neither given up nor marked rejected.
		down := h.desk(t, "Desk D", "D", h.station(t, "Desk D", "D"))
		down.sync(t)
		down.svc.Remote = server.NewClient("http://127.0.0.1:1", "qrd_test_Desk_D") // no answer
		if v := down.redeem(t, codes[2], "sun"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk D offline: %+v", v)
		}
		down.svc.Remote = server.NewClient(h.url, "qrd_test_Desk_D")
		h.db.RevokeStation(context.Background(), "Desk D", h.now.Unix())
		if _, err := down.svc.Sync(context.Background()); app.DeskRefusal(err) == nil {
			t.Fatalf("sync of revoked desk D: %v", err)
		}
		if n := down.count(t, `SELECT count(*) FROM outbox WHERE state = 'pending'`); n != 1 {
			t.Fatalf("desk D's offline event: %d pending, want 1 (kept for later)", n)
		}
		if err := h.db.RenewStation(context.Background(), "Desk D", server.HashToken("qrd_renewed")); err != nil {
			t.Fatal(err)
		}
		down.svc.Remote = server.NewClient(h.url, "qrd_renewed")
		down.sync(t)
		if n := count(t, h.db, `SELECT count(*) FROM events WHERE code = ? AND station = 'Desk D'`, codes[2]); n != 1 {
			t.Fatalf("after renewal the server has %d of desk D's events, want 1", n)
		}
	})
}

// TestWrongKeyRingDesk: a desk whose key file is another deployment's is
// refused (409) and decides nothing alone.
func TestWrongKeyRingDesk(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, _, _, _ := twoDesks(t, dbPath, 1)
		other := newCentral(t, dbPath, 0)
		c := other.desk(t, "Desk C", "C", "")
		c.svc.Remote = server.NewClient(h.url, h.station(t, "Desk C", "C"))
		own := c.issue(t, 1)
		v := c.redeem(t, own[0], "zhao")
		if v.Outcome != app.OutcomeServerRefused || !strings.Contains(v.Reason, "key ring") {
			t.Fatalf("desk with another key ring: %+v", v)
		}
		if n := c.count(t, `SELECT count(*) FROM codes WHERE status = 'used'`); n != 0 {
			t.Fatal("the desk with another key ring redeemed alone")
		}
	})
}

// Defect 2: the desk and the server had different field limits, so the
// desk decided what the server then rejected.
func TestFieldLimitsAgree(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, codes := twoDesks(t, dbPath, 4)
		chinese := strings.Repeat("张", 34) // 102 bytes: over the old server limit
		if v := a.redeem(t, codes[0], chinese); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("34-character operator: %+v", v)
		}
		var op string
		h.db.QueryRowForTests(`SELECT used_operator FROM codes WHERE code = ?`, codes[0]).Scan(&op)
		if op != chinese {
			t.Fatalf("the server has operator %q", op)
		}
		if _, err := a.svc.Redeem(context.Background(), codes[1], strings.Repeat("张", 41)); app.KindOf(err) != app.KindInvalid || !strings.Contains(app.ErrorMessage(err), "at most 40") {
			t.Fatalf("41-character operator: %v, want a clear refusal", err)
		}
		reason := strings.Repeat("损", 175) // 525 bytes, 175 characters
		if _, err := a.svc.SetDisabled(context.Background(), codes[1], true, reason, "li"); err != nil {
			t.Fatal(err)
		}
		a.sync(t)
		if n := a.count(t, `SELECT count(*) FROM outbox WHERE state <> 'sent'`); n != 0 {
			t.Fatalf("%d events not accepted by the server", n)
		}
		b.sync(t)
		if v := b.redeem(t, codes[1], "wang"); v.Outcome != app.OutcomeDisabled || v.Reason != reason && v.DisabledReason != reason {
			t.Fatalf("desk B redeemed the disabled label: %+v", v)
		}
		if _, err := a.svc.SetDisabled(context.Background(), codes[2], true, strings.Repeat("损", 201), "li"); app.KindOf(err) != app.KindInvalid {
			t.Fatalf("201-character reason: %v, want a clear refusal", err)
		}
	})
}

// Defect 5 (PostgreSQL) and coverage: disables and enables travel to the
// server and to every desk, on both engines.
func TestDisableEnableTravel(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, codes := twoDesks(t, dbPath, 2)
		if _, err := a.svc.SetDisabled(context.Background(), codes[0], true, "torn label", "li"); err != nil {
			t.Fatal(err)
		}
		a.sync(t)
		b.sync(t)
		if n := count(t, h.db, `SELECT count(*) FROM codes WHERE code = ? AND status = 'disabled'`, codes[0]); n != 1 {
			t.Fatal("the server did not disable the label")
		}
		if v := b.redeem(t, codes[0], "wang"); v.Outcome != app.OutcomeDisabled {
			t.Fatalf("desk B, disabled label: %+v", v)
		}
		if _, err := b.svc.SetDisabled(context.Background(), codes[0], false, "", "wang"); err != nil {
			t.Fatal(err)
		}
		b.sync(t)
		a.sync(t)
		if v := a.redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A after desk B enabled it: %+v", v)
		}
	})
}

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
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, _, codes := twoDesks(t, dbPath, 2)
		slow := &delayed{d: 600 * time.Millisecond}
		slow.h = (&server.API{Store: h.db, Log: discard, Now: func() time.Time { return h.now }}).Handler()
		srv := httptest.NewServer(slow)
		defer srv.Close()
		d := h.desk(t, "Desk D", "D", "")
		d.svc.Remote = server.NewClient(srv.URL, h.station(t, "Desk D", "D"))
		d.svc.OnlineTimeout = 150 * time.Millisecond
		d.sync(t)
		if v := a.redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A: %+v", v)
		}
		slow.on.Store(true)
		v := d.redeem(t, codes[0], "sun") // the server says already_used, too late
		if v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk D, deciding alone after the timeout: %+v", v)
		}
		time.Sleep(slow.d) // the server has answered the online attempt by now
		slow.on.Store(false)
		d.sync(t)
		conflicts, err := h.db.Conflicts(context.Background(), 0, math.MaxInt64)
		if err != nil || len(conflicts) != 1 {
			t.Fatalf("conflicts %+v %v, want the double use recorded", conflicts, err)
		}
		if k := conflicts[0]; k.FirstStation != "Desk A" || k.SecondStation != "Desk D" || k.SecondEvent != v.TraceID {
			t.Fatalf("conflict %+v", k)
		}
		var result string
		d.db.SQL().QueryRow(`SELECT result FROM outbox WHERE event_id = ?`, v.TraceID).Scan(&result)
		if !strings.Contains(result, `"conflict"`) || strings.Contains(result, "duplicate") {
			t.Fatalf("desk D's event was answered %s", result)
		}
		if n := count(t, h.db, `SELECT count(*) FROM events WHERE event_id = ?`, v.TraceID); n != 1 {
			t.Fatalf("the event is on the server %d times", n)
		}
		a.sync(t)
		if k, _ := a.db.Conflicts(context.Background()); len(k) != 1 {
			t.Fatalf("desk A knows %d conflicts, want 1", len(k))
		}
	})
}

// Defect 4: an event id was trusted whatever it carried.
func TestEventIDBoundToContent(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := newCentral(t, dbPath, 3)
		a, b := h.station(t, "Desk 1", "A"), h.station(t, "Desk 2", "B")
		h.upload(t, a)
		at := h.now.Unix()
		first := central.Event{EventID: "bound-event-1", Kind: "redeem", Code: h.codes[0], Operator: "li", At: at}
		var r central.Result
		if st := h.call(t, "POST", "/v1/redeem", a, h.ring, first, &r); st != 200 || r.Outcome != "redeemed" {
			t.Fatalf("first: %d %+v", st, r)
		}
		for _, tc := range []struct {
			name  string
			token string
			ev    central.Event
		}{
			{"OtherCode", a, central.Event{EventID: first.EventID, Kind: "redeem", Code: h.codes[1], Operator: "li", At: at}},
			{"OtherKind", a, central.Event{EventID: first.EventID, Kind: "disable", Code: h.codes[0], Operator: "li", At: at, Reason: "torn"}},
			{"OtherDesk", b, first},
			{"OtherTime", a, central.Event{EventID: first.EventID, Kind: "redeem", Code: h.codes[0], Operator: "li", At: at + 1}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				var out struct{ Error, Code string }
				st := h.call(t, "POST", "/v1/events", tc.token, h.ring, map[string]any{"events": []central.Event{tc.ev}}, &out)
				if st != 409 || out.Code != app.RefusedEventReused {
					t.Fatalf("reused id: %d %+v, want 409 event_reused", st, out)
				}
			})
		}
		if n := count(t, h.db, `SELECT count(*) FROM codes WHERE code = ? AND status = 'unused'`, h.codes[1]); n != 1 {
			t.Fatal("the second code changed under a reused event id")
		}
		var again central.Result
		h.call(t, "POST", "/v1/redeem", a, h.ring, first, &again)
		if !again.Duplicate || again.Outcome != "redeemed" {
			t.Fatalf("the same event again: %+v", again)
		}
	})
}

// Defect 6: a desk's token uploaded codes under another desk's letter.
func TestLetterBelongsToStation(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := newCentral(t, dbPath, 3) // letter A codes
		a, b := h.station(t, "Desk 1", "A"), h.station(t, "Desk 2", "B")
		var out struct{ Error, Code string }
		codes := []map[string]any{{"code": h.codes[0]}}
		if st := h.call(t, "POST", "/v1/batches", b, h.ring, map[string]any{"codes": codes}, &out); st != 400 || !strings.Contains(out.Error, "letter A") {
			t.Fatalf("desk B uploading letter A codes: %d %+v", st, out)
		}
		h.upload(t, a) // the rightful desk is not blocked
		// A forged code under A's letter (the server cannot verify it) is
		// dropped by every desk that downloads it.
		forged := h.codes[1][:len(h.codes[1])-3] + "222"
		if forged == h.codes[1] {
			forged = h.codes[1][:len(h.codes[1])-3] + "333"
		}
		h.call(t, "POST", "/v1/batches", a, h.ring, map[string]any{"codes": []map[string]any{{"code": forged}}}, &out)
		d := h.desk(t, "Desk 2", "B", b)
		d.sync(t)
		if n := d.count(t, `SELECT count(*) FROM codes`); n != len(h.codes) {
			t.Fatalf("desk has %d codes, want the %d genuine ones", n, len(h.codes))
		}
		if n := d.count(t, `SELECT count(*) FROM codes WHERE code = ?`, forged); n != 0 {
			t.Fatal("the forged code was stored at the desk")
		}
	})
}

// Defect 8: offline event times were taken at their word.
func TestOfflineTimeSanity(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := newCentral(t, dbPath, 4)
		a, b := h.station(t, "Desk 1", "A"), h.station(t, "Desk 2", "B")
		h.upload(t, a)
		now := h.now.Unix()
		var r central.Result
		h.call(t, "POST", "/v1/redeem", a, h.ring, central.Event{EventID: "sane-online-1", Code: h.codes[0], Operator: "li", At: now}, &r)
		for i, at := range []int64{5, math.MaxInt64, 1000} {
			code := h.codes[min(i, 1)]
			var out struct{ Results []central.Result }
			ev := central.Event{EventID: "sane-offline-" + string(rune('a'+i)) + "xxxxx", Kind: "redeem", Code: code, Operator: "wang", At: at, Offline: true}
			if st := h.call(t, "POST", "/v1/events", b, h.ring, map[string]any{"events": []central.Event{ev}}, &out); st != 200 {
				t.Fatalf("at %d: status %d", at, st)
			}
		}
		var usedAt int64
		var station string
		h.db.QueryRowForTests(`SELECT used_at, used_station FROM codes WHERE code = ?`, h.codes[0]).Scan(&usedAt, &station)
		if usedAt != now || station != "Desk 1" {
			t.Fatalf("an implausible time became the redemption of record: %d at %q", usedAt, station)
		}
		h.db.QueryRowForTests(`SELECT used_at FROM codes WHERE code = ?`, h.codes[1]).Scan(&usedAt)
		if usedAt != now {
			t.Fatalf("redeemed offline 'at 1970' is stored at %d, want the server's time %d", usedAt, now)
		}
		day := time.Date(h.now.Year(), h.now.Month(), h.now.Day(), 0, 0, 0, 0, time.Local).Unix()
		conflicts, _ := h.db.Conflicts(context.Background(), day, day+86400)
		if len(conflicts) != 2 || conflicts[0].Flag == "" || conflicts[0].FirstStation != "Desk 1" {
			t.Fatalf("today's conflicts %+v, want both flagged with Desk 1 of record", conflicts)
		}
		flagged, err := h.db.FlaggedEvents(context.Background(), day, day+86400)
		if err != nil || len(flagged) != 3 {
			t.Fatalf("flagged events %+v %v, want 3", flagged, err)
		}
		var stored int64
		h.db.QueryRowForTests(`SELECT at FROM events WHERE event_id = 'sane-offline-bxxxxx'`).Scan(&stored)
		if stored != math.MaxInt64 {
			t.Fatalf("the desk's own time is not kept in the event: %d", stored)
		}
	})
}

// TestOfflineUploadsRace (found by the hostile pass): three desks upload
// offline redemptions of the same labels at once. On PostgreSQL the losing
// UPDATE waits for the winner; deciding on what was read before it called
// the losers "expired" and recorded no conflict.
func TestOfflineUploadsRace(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := newCentral(t, dbPath, 30)
		tokens := []string{h.station(t, "Desk 1", "A"), h.station(t, "Desk 2", "B"), h.station(t, "Desk 3", "C")}
		h.upload(t, tokens[0])
		var mu sync.Mutex
		outcomes := map[string]int{}
		for i, code := range h.codes { // the three uploads of one label at once
			var wg sync.WaitGroup
			for d, tok := range tokens {
				wg.Add(1)
				go func() {
					defer wg.Done()
					ev := central.Event{EventID: fmt.Sprintf("race-d%d-%03d", d, i), Kind: "redeem", Code: code, Operator: "op", At: h.now.Unix() + int64(d), Offline: true}
					var out struct{ Results []central.Result }
					h.call(t, "POST", "/v1/events", tok, h.ring, map[string]any{"events": []central.Event{ev}}, &out)
					mu.Lock()
					for _, r := range out.Results {
						outcomes[r.Outcome]++
					}
					mu.Unlock()
				}()
			}
			wg.Wait()
		}
		n := len(h.codes)
		if outcomes["redeemed"] != n || outcomes["conflict"] != 2*n {
			t.Fatalf("outcomes %v, want %d redeemed and %d conflicts", outcomes, n, 2*n)
		}
		if k := count(t, h.db, `SELECT count(*) FROM conflicts`); k != 2*n {
			t.Fatalf("%d conflicts recorded, want %d", k, 2*n)
		}
	})
}

// TestUnplacedEventsDoNotBlockTheOutbox (found by the hostile pass): more
// than a page (500) of offline events the server cannot place yet (their
// batch is not uploaded) must not hold back the events behind them.
func TestUnplacedEventsDoNotBlockTheOutbox(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, own := twoDesks(t, dbPath, 1)
		theirs := b.issue(t, 501) // desk B never uploads them
		token := "qrd_test_Desk_A"
		a.svc.Remote = server.NewClient("http://127.0.0.1:1", token) // no answer
		for _, code := range theirs {
			if v := a.redeem(t, code, "li"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("offline, a label of desk B: %+v", v)
			}
		}
		if v := a.redeem(t, own[0], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("offline, its own label: %+v", v)
		}
		a.svc.Remote = server.NewClient(h.url, token)
		a.sync(t)
		if n := count(t, h.db, `SELECT count(*) FROM events WHERE code = ?`, own[0]); n != 1 {
			t.Fatalf("the event behind 501 waiting ones reached the server %d times, want 1", n)
		}
		if n := a.count(t, `SELECT count(*) FROM outbox WHERE state = 'pending'`); n != 501 {
			t.Fatalf("%d events wait, want the 501 of desk B's labels", n)
		}
	})
}

// TestDeskRefusesWhatItDisabled (found by the hostile pass): a desk that
// disabled a label (not uploaded yet) and then scans it must refuse it,
// not ask the server, which still has it unused; the same for a label it
// redeemed offline and has not uploaded.
func TestDeskRefusesWhatItDisabled(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, _, codes := twoDesks(t, dbPath, 2)
		if _, err := a.svc.SetDisabled(context.Background(), codes[0], true, "reported stolen", "li"); err != nil {
			t.Fatal(err)
		}
		if v := a.redeem(t, codes[0], "li"); v.Outcome != app.OutcomeDisabled {
			t.Fatalf("the desk that disabled the label: %+v", v)
		}
		token := "qrd_test_Desk_A"
		a.svc.Remote = server.NewClient("http://127.0.0.1:1", token)
		if v := a.redeem(t, codes[1], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("offline: %+v", v)
		}
		a.svc.Remote = server.NewClient(h.url, token)
		if v := a.redeem(t, codes[1], "li"); v.Outcome != app.OutcomeAlreadyUsed {
			t.Fatalf("online again, before its offline event is uploaded: %+v", v)
		}
		a.sync(t)
		if n := count(t, h.db, `SELECT count(*) FROM codes WHERE status = 'used'`); n != 1 {
			t.Fatalf("%d labels used on the server, want 1", n)
		}
		if n := count(t, h.db, `SELECT count(*) FROM codes WHERE code = ? AND status = 'disabled'`, codes[0]); n != 1 {
			t.Fatal("the disable did not reach the server")
		}
		if n := count(t, h.db, `SELECT count(*) FROM conflicts`); n != 0 {
			t.Fatalf("%d conflicts, want none", n)
		}
	})
}

// TestTogglesConverge (found by the hostile pass): desk B disables a label
// and does not sync; desk A disables it, syncs, enables it, syncs; then
// everyone syncs. The server applies B's disable last: every desk must end
// with the label disabled, B included (it used to skip its own change and
// apply A's older enable over it).
func TestTogglesConverge(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, codes := twoDesks(t, dbPath, 1)
		c := h.desk(t, "Desk C", "C", h.station(t, "Desk C", "C"))
		c.sync(t)
		l := codes[0]
		toggle := func(d *desk, disable bool, reason string) {
			t.Helper()
			if _, err := d.svc.SetDisabled(context.Background(), l, disable, reason, "op"); err != nil {
				t.Fatal(err)
			}
		}
		toggle(b, true, "damaged label")
		toggle(a, true, "lost")
		a.sync(t)
		toggle(a, false, "")
		a.sync(t)
		for i := 0; i < 2; i++ {
			for _, d := range []*desk{b, a, c} {
				d.sync(t)
			}
		}
		var server string
		h.db.QueryRowForTests(`SELECT status FROM codes WHERE code = ?`, l).Scan(&server)
		for name, d := range map[string]*desk{"A": a, "B": b, "C": c} {
			var local string
			d.db.SQL().QueryRow(`SELECT status FROM codes WHERE code = ?`, l).Scan(&local)
			if local != server {
				t.Errorf("desk %s says %s, the server %s", name, local, server)
			}
		}
		if server != "disabled" {
			t.Fatalf("the server says %s, want disabled (desk B's disable came last)", server)
		}
	})
}

// TestServerAnswerRemembered (found by the property test): a desk that
// redeems online a label it has not downloaded yet keeps the server's
// answer, so the same label scanned there again offline is refused, not
// accepted a second time as an unknown label.
func TestServerAnswerRemembered(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		_, a, b, _ := twoDesks(t, dbPath, 1)
		fresh := a.issue(t, 1)
		a.sync(t) // uploaded; desk B has not downloaded it
		if v := b.redeem(t, fresh[0], "wang"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("online: %+v", v)
		}
		b.svc.Remote = server.NewClient("http://127.0.0.1:1", "qrd_test_Desk_B") // no answer
		if v := b.redeem(t, fresh[0], "wang"); v.Outcome != app.OutcomeAlreadyUsed {
			t.Fatalf("the same label again, offline: %+v", v)
		}
	})
}

// TestRefusedBatchDoesNotStopSync: a desk whose batch the server refuses
// (its settings carry another letter than its enrolment) is told why, and
// its events and the other desks' changes still flow.
func TestRefusedBatchDoesNotStopSync(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, _, codes := twoDesks(t, dbPath, 2)
		wrong := h.desk(t, "Desk W", "Z", h.station(t, "Desk W", "W")) // enrolled as W, issues as Z
		wrong.sync(t)
		wrong.issue(t, 3)
		if v := wrong.redeem(t, codes[0], "zhao"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk W online: %+v", v)
		}
		a.redeem(t, codes[1], "li")
		_, err := wrong.svc.Sync(context.Background())
		var sr *app.ServerRefusal
		if !errors.As(err, &sr) || !strings.Contains(sr.Message, "letter Z") {
			t.Fatalf("sync with a refused batch: %v", err)
		}
		if v, _ := wrong.svc.Check(context.Background(), codes[1]); v.Outcome != app.OutcomeAlreadyUsed {
			t.Fatalf("desk W did not get the other desks' changes: %+v", v)
		}
		if n := wrong.count(t, `SELECT count(*) FROM batches WHERE uploaded = 0 AND created_at > 0`); n != 1 {
			t.Fatalf("%d batches waiting, want the refused one", n)
		}
	})
}

// TestForeignRefusalKeepsEvents (found by the second hostile pass): a 4xx
// that is not the server's refusal of an event's content (here a proxy's
// HTML 404) must not mark the desk's events refused for good.
func TestForeignRefusalKeepsEvents(t *testing.T) {
	h, a, _, codes := twoDesks(t, func(t testing.TB) string { return filepath.Join(t.TempDir(), "server.db") }, 2)
	a.svc.Remote = server.NewClient("http://127.0.0.1:1", "qrd_test_Desk_A")
	a.redeem(t, codes[0], "li") // decided here, queued
	real := (&server.API{Store: h.db, Log: discard, Now: func() time.Time { return h.now }}).Handler()
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/events" {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte("<html>Not Found</html>"))
			return
		}
		real.ServeHTTP(w, r)
	}))
	defer proxy.Close()
	a.svc.Remote = server.NewClient(proxy.URL, "qrd_test_Desk_A")
	if _, err := a.svc.Sync(context.Background()); err == nil {
		t.Fatal("a sync whose events a proxy refused reported success")
	}
	if n := a.count(t, `SELECT count(*) FROM outbox WHERE state = 'pending'`); n != 1 {
		t.Fatalf("%d events still waiting, want 1 (not rejected)", n)
	}
	a.svc.Remote = newClient(h, "Desk A")
	a.sync(t)
	if n := count(t, h.db, `SELECT count(*) FROM events WHERE code = ?`, codes[0]); n != 1 {
		t.Fatal("the event did not reach the server once the proxy let it through")
	}
}

// TestClockAt1970 (found by the second hostile pass): a desk whose clock
// went back to 1970 uploads its labels "issued" at 1970 and redeems one
// offline "at" 1970: the time is still implausible against the date
// printed in the label, so it is flagged, decided at the server's time,
// and never the redemption of record.
func TestClockAt1970(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := newCentral(t, dbPath, 1)
		a, b := h.station(t, "Desk 1", "A"), h.station(t, "Desk 2", "B")
		var res struct{ Added int }
		h.call(t, "POST", "/v1/batches", a, h.ring, map[string]any{"codes": []map[string]any{{"code": h.codes[0], "expire_at": 0, "created_at": 1000}}}, &res)
		var r central.Result
		h.call(t, "POST", "/v1/redeem", b, h.ring, central.Event{EventID: "online-desk2-1", Code: h.codes[0], Operator: "wang", At: h.now.Unix()}, &r)
		var out struct{ Results []central.Result }
		h.call(t, "POST", "/v1/events", a, h.ring, map[string]any{"events": []central.Event{{EventID: "offline-1970-1", Kind: "redeem", Code: h.codes[0], Operator: "li", At: 2000, Offline: true}}}, &out)
		if len(out.Results) != 1 || out.Results[0].Outcome != "conflict" || out.Results[0].UsedStation != "Desk 2" {
			t.Fatalf("offline at 1970: %+v, want a conflict with Desk 2 of record", out.Results)
		}
		day := time.Date(h.now.Year(), h.now.Month(), h.now.Day(), 0, 0, 0, 0, time.Local).Unix()
		if k, _ := h.db.Conflicts(context.Background(), day, day+86400); len(k) != 1 || k[0].Flag == "" {
			t.Fatalf("today's conflicts %+v, want one, flagged", k)
		}
	})
}
