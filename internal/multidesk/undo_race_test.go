package multidesk_test

import (
	"context"
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
	t.Parallel()
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
			status := h.Server(t).Status(x)
			conflicts := h.Server(t).Conflicts()[x]
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

// TestUndoRacesAnotherDesksChange: desk A redeems X online, and A's undo
// of it reaches the server at the moment another desk's change of X does:
// B disables X, B's close of day expires it, or B replaces it with a label
// of its own. Each answer and the label's end state must be those of one
// order or the other. Racing on PostgreSQL, a change that took no lock
// read the label twice: refused for a status it would have succeeded on
// (disabled? "the code is unused"), or, for the replacement (which holds
// the label's row while it decides), the undo went through past the
// conflict the replacement recorded: X valid again and its replacement
// void.
func TestUndoRacesAnotherDesksChange(t *testing.T) {
	t.Parallel()
	type answer struct{ Outcome, Status string }
	cases := []struct {
		kind string
		// serial says whether the answers (A's undo, B's change) and X's and
		// the new label's end state are those of one order or the other.
		serial func(undo, other answer, x, y string) bool
	}{
		{"disable", func(undo, other answer, x, _ string) bool {
			return undo.Outcome == "undone" && other.Outcome == "disabled" && x == "disabled" || // undo, disable
				other.Outcome == "rejected" && other.Status == "used" && undo.Outcome == "undone" && x == "unused" // disable, undo
		}},
		{"expire", func(undo, other answer, x, _ string) bool {
			return undo.Outcome == "undone" && other.Outcome == "expired" && x == "expired" ||
				other.Outcome == "not_expired" && other.Status == "used" && undo.Outcome == "undone" && x == "unused"
		}},
		{"replace", func(undo, other answer, x, y string) bool {
			return undo.Outcome == "undone" && other.Outcome == "replaced" && x == "disabled" && y == "unused" ||
				other.Outcome == "conflict" && undo.Outcome == "rejected" && undo.Status == "used" && x == "used" && y == "disabled"
		}},
	}
	for _, tc := range cases {
		t.Run(tc.kind, func(t *testing.T) {
			testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
				const n = 60
				h := centraltest.New(t, dbPath, n)
				tokA := h.Station(t, "Desk A", "A")
				tokB := h.Station(t, "Desk B", "B")
				h.Upload(t, tokA)
				_, fresh, err := h.Desk(t, "Issuer B", "B", "").Svc.Issue(context.Background(), app.IssueRequest{Count: n})
				if err != nil {
					t.Fatal(err)
				}
				at := h.Now.Unix()
				bad := 0
				combo := map[string]int{}
				defer func() { t.Logf("outcomes: %v", combo) }()
				for i, x := range h.Codes {
					var r struct{ Outcome string }
					if st := h.Call(t, "POST", "/v1/redeem", tokA, h.Ring, map[string]any{"event_id": fmt.Sprintf("evt-a-%04d", i), "code": x, "operator": "li", "at": at}, &r); st != 200 || r.Outcome != "redeemed" {
						t.Fatalf("A online: %d %+v", st, r)
					}
					other := map[string]any{"event_id": fmt.Sprintf("evt-b-%04d", i), "kind": tc.kind, "code": x, "operator": "wang", "at": at + 1, "reason": "label torn"}
					y := fresh[i].String()
					if tc.kind == "replace" {
						other["new_code"], other["new_created_at"] = y, at+1
					}
					var wg sync.WaitGroup
					var undo, chg struct{ Results []answer }
					wg.Add(2)
					go func() {
						defer wg.Done()
						h.Call(t, "POST", "/v1/events", tokA, h.Ring, map[string]any{"events": []map[string]any{{
							"event_id": fmt.Sprintf("evt-u-%04d", i), "kind": "undo", "code": x, "operator": "sup", "at": at + 1, "undoes": fmt.Sprintf("evt-a-%04d", i), "reason": "wrong parcel"}}}, &undo)
					}()
					go func() {
						defer wg.Done()
						h.Call(t, "POST", "/v1/events", tokB, h.Ring, map[string]any{"events": []map[string]any{other}}, &chg)
					}()
					wg.Wait()
					if len(undo.Results) != 1 || len(chg.Results) != 1 {
						t.Fatalf("%s: answers undo %+v, %s %+v", x, undo, tc.kind, chg)
					}
					xs, ys := h.Server(t).Status(x), h.Server(t).Status(y)
					combo[fmt.Sprintf("%v/%v/%s/%s", undo.Results[0], chg.Results[0], xs, ys)]++
					if tc.serial(undo.Results[0], chg.Results[0], xs, ys) {
						continue
					}
					bad++
					if bad <= 3 {
						t.Errorf("%s: undo %+v, %s %+v; the server then holds it %s (new label: %q), in no order of the two", x, undo.Results[0], tc.kind, chg.Results[0], xs, ys)
					}
				}
				if bad > 0 {
					t.Errorf("%d of %d labels in no order of the undo and the %s", bad, n, tc.kind)
				}
			})
		})
	}
}

// TestReplaceRacesOnlineRedeemOfNewLabel: X was used at desk A; desk B
// replaces X by Y, a label of its own batch the server already holds, at
// the moment desk D redeems Y online. In either order D's answer and Y's
// end state agree: D told "redeemed" and Y used (the replacement then
// names both in a conflict), or D refused and Y void. Racing on PostgreSQL,
// a replacement that read Y without holding its row voided Y over D's
// redemption: D handed the parcel over and the server holds Y disabled.
func TestReplaceRacesOnlineRedeemOfNewLabel(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		const n = 60
		h := centraltest.New(t, dbPath, n)
		tokA := h.Station(t, "Desk A", "A")
		tokB := h.Station(t, "Desk B", "B")
		tokD := h.Station(t, "Desk D", "D")
		h.Upload(t, tokA)
		b := h.Desk(t, "Desk B", "B", tokB)
		fresh := b.Issue(t, n)
		b.Sync(t)
		at := h.Now.Unix()
		bad := 0
		combo := map[string]int{}
		defer func() { t.Logf("outcomes: %v", combo) }()
		for i, x := range h.Codes {
			var r struct{ Outcome string }
			if st := h.Call(t, "POST", "/v1/redeem", tokA, h.Ring, map[string]any{"event_id": fmt.Sprintf("evt-a-%04d", i), "code": x, "operator": "li", "at": at}, &r); st != 200 || r.Outcome != "redeemed" {
				t.Fatalf("A online: %d %+v", st, r)
			}
			y := fresh[i]
			var wg sync.WaitGroup
			var rep struct{ Results []struct{ Outcome string } }
			var d struct{ Outcome string }
			wg.Add(2)
			go func() {
				defer wg.Done()
				h.Call(t, "POST", "/v1/events", tokB, h.Ring, map[string]any{"events": []map[string]any{{
					"event_id": fmt.Sprintf("evt-r-%04d", i), "kind": "replace", "code": x, "operator": "wang", "at": at + 1,
					"reason": "label torn", "new_code": y, "new_created_at": at + 1}}}, &rep)
			}()
			go func() {
				defer wg.Done()
				h.Call(t, "POST", "/v1/redeem", tokD, h.Ring, map[string]any{"event_id": fmt.Sprintf("evt-d-%04d", i), "code": y, "operator": "zhao", "at": at + 1}, &d)
			}()
			wg.Wait()
			ys := h.Server(t).Status(y)
			combo[fmt.Sprintf("%v/%s/%s", rep.Results, d.Outcome, ys)]++
			if (d.Outcome == "redeemed") == (ys == string(app.StatusUsed)) {
				continue
			}
			bad++
			if bad <= 3 {
				t.Errorf("%s replaced by %s: replacement %+v, desk D's online redemption of %s %q; the server holds %s %s", x, y, rep.Results, y, d.Outcome, y, ys)
			}
		}
		if bad > 0 {
			t.Errorf("%d of %d new labels whose online answer disagrees with their status", bad, n)
		}
	})
}
