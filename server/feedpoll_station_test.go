package server_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// TestLongPollRefusedAfterRevocationOrMove (found by the hostile review):
// a desk's long poll took its station once, when it arrived, and kept it
// for up to MaxWait (25 s): revoked, given a new token or moved to another
// site while it waited, the desk was still answered 200 with a change
// committed after that. A woken poll now checks its station again, as a
// read arriving then would: refused, or told to start over. Both engines.
func TestLongPollRefusedAfterRevocationOrMove(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		for _, tc := range []string{"revoked", "renewed", "moved"} {
			t.Run(tc, func(t *testing.T) {
				h := centraltest.New(t, dbPath, 3)
				issuer := h.Station(t, "Desk 1", "A")
				follower := h.Station(t, "Desk 2", "B")
				h.Upload(t, issuer)
				var p feedPage
				if st := h.Call(t, "GET", "/v1/changes?after=0", follower, h.Ring, nil, &p); st != 200 || len(p.Changes) != 3 {
					t.Fatalf("first read: %d %+v", st, p)
				}
				type answer struct {
					status int
					page   map[string]any
				}
				got := make(chan answer, 1)
				go func() {
					var out map[string]any
					st := h.Call(t, "GET", fmt.Sprintf("/v1/changes?after=%d&wait=10", p.Next), follower, h.Ring, nil, &out)
					got <- answer{st, out}
				}()
				time.Sleep(300 * time.Millisecond) // the poll waits
				ctx := context.Background()
				switch tc {
				case "revoked":
					if err := h.DB.RevokeStation(ctx, "Desk 2", h.Now.Unix()); err != nil {
						t.Fatal(err)
					}
				case "renewed":
					if err := h.DB.RenewStation(ctx, "Desk 2", "0000000000000000000000000000000000000000000000000000000000000000"); err != nil {
						t.Fatal(err)
					}
				case "moved":
					if err := h.DB.AddSite(ctx, "Elsewhere", 1); err != nil {
						t.Fatal(err)
					}
					if err := h.DB.SetStationSite(ctx, "Desk 2", "Elsewhere"); err != nil {
						t.Fatal(err)
					}
				}
				// After the change to the station: a redemption in the
				// follower's (old) site.
				var r protocol.Result
				if st := h.Call(t, "POST", "/v1/redeem", issuer, h.Ring, protocol.Event{EventID: "poll-after-" + tc, Code: h.Codes[0], Operator: "op", At: 1}, &r); st != 200 || r.Outcome != protocol.OutcomeRedeemed {
					t.Fatalf("redeem: %d %+v", st, r)
				}
				a := <-got
				if changes, _ := a.page["changes"].([]any); a.status == 200 && len(changes) > 0 {
					t.Fatalf("%s desk's waiting long poll was answered %d with %d change(s) committed after it was %s: %v", tc, a.status, len(changes), tc, a.page)
				}
			})
		}
	})
}
