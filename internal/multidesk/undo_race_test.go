package multidesk_test

import (
	"fmt"
	"sync"
	"testing"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// TestUndoRacesOfflineDoubleUse: desk A redeems X online; desk C had
// redeemed X offline (a parcel went out at C) and uploads it at the very
// moment A's supervisor undoes A's redemption. Sequentially either order
// is right: the conflict first refuses the undo; the undo first leaves C's
// redemption the one of record. Racing on PostgreSQL, the undo's guard
// (no conflict recorded for the label) does not see C's uncommitted
// conflict and C's conflict path takes no lock on the label: both commit.
// The server then holds X unused with a conflict A/C, so desk D redeems X
// online, a third parcel (C's and D's both standing), and no conflict
// names D. Worse, when the undo commits between C's guarded UPDATE (which
// saw X used) and its re-read, C's offline redemption is answered
// "expired" and recorded nowhere: X unused, no conflict, and D's online
// redemption is a second parcel nobody is told of.
func TestUndoRacesOfflineDoubleUse(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		const n = 150
		h := centraltest.New(t, dbPath, n)
		tokA := h.Station(t, "Desk A", "A")
		tokC := h.Station(t, "Desk C", "C")
		tokD := h.Station(t, "Desk D", "D")
		h.Upload(t, tokA)
		at := h.Now.Unix()
		bad := 0
		combo := map[string]int{}
		defer func() { t.Logf("outcomes: %v", combo) }()
		for i, x := range h.Codes {
			var r struct{ Outcome, Error string }
			if st := h.Call(t, "POST", "/v1/redeem", tokA, h.Ring, map[string]any{"event_id": fmt.Sprintf("evt-a-%04d", i), "code": x, "operator": "li", "at": at}, &r); st != 200 || r.Outcome != "redeemed" {
				t.Fatalf("A online: %d %+v", st, r)
			}
			var wg sync.WaitGroup
			var undo, off struct {
				Results []struct{ Outcome string }
			}
			wg.Add(2)
			go func() {
				defer wg.Done()
				h.Call(t, "POST", "/v1/events", tokA, h.Ring, map[string]any{"events": []map[string]any{{
					"event_id": fmt.Sprintf("evt-u-%04d", i), "kind": "undo", "code": x, "operator": "sup", "at": at + 1, "undoes": fmt.Sprintf("evt-a-%04d", i), "reason": "wrong parcel"}}}, &undo)
			}()
			go func() {
				defer wg.Done()
				h.Call(t, "POST", "/v1/events", tokC, h.Ring, map[string]any{"events": []map[string]any{{
					"event_id": fmt.Sprintf("evt-c-%04d", i), "kind": "redeem", "code": x, "operator": "wang", "at": at + 1, "offline": true}}}, &off)
			}()
			wg.Wait()
			var status string
			h.DB.QueryRowForTests(`SELECT status FROM codes WHERE code = ?`, x).Scan(&status)
			conflicts := centraltest.Count(t, h.DB, `SELECT count(*) FROM conflicts WHERE code = ?`, x)
			combo[fmt.Sprintf("%v/%v/%s/%d", undo.Results, off.Results, status, conflicts)]++
			if status == string(app.StatusUsed) {
				continue
			}
			var d struct{ Outcome string }
			h.Call(t, "POST", "/v1/redeem", tokD, h.Ring, map[string]any{"event_id": fmt.Sprintf("evt-d-%04d", i), "code": x, "operator": "zhao", "at": at + 2}, &d)
			bad++
			if bad <= 3 {
				t.Errorf("%s: undo %+v, C's offline redemption %+v; the server then holds it %s with %d conflict(s) (C's parcel went out), and desk D online: %s",
					x, undo.Results, off.Results, status, conflicts, d.Outcome)
			}
		}
		if bad > 0 {
			t.Errorf("%d of %d labels handed over at C left unused at the server", bad, n)
		}
	})
}
