package multidesk_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/central"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// A desk's day figures are its own, and once it has synced they equal its
// row on the server's dashboard for that day; every desk's figures come
// apart, as known at its last sync. (Issue 17, item 6.)
func TestDayFiguresMatchDashboardRow(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 4)
		bCodes := b.Issue(t, 2)
		b.Sync(t)
		// Desk B redeems two of A's labels online; desk A one of B's, and
		// one of its own that its supervisor then undoes.
		for _, code := range codes[:2] {
			if v := b.Redeem(t, code, "bob"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("desk B: %+v", v)
			}
		}
		if v := a.Redeem(t, bCodes[0], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A: %+v", v)
		}
		if v := a.Redeem(t, codes[2], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A: %+v", v)
		}
		h.Now = h.Now.Add(time.Minute)
		a.Undo(t, codes[2], "wrong parcel")
		// Both offline redeem the same label, B first: A's is the double use.
		remoteA, remoteB := a.Svc.Remote, b.Svc.Remote
		a.Svc.Remote, b.Svc.Remote = nil, nil
		if v := b.Redeem(t, codes[3], "bob"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk B offline: %+v", v)
		}
		h.Now = h.Now.Add(time.Minute)
		if v := a.Redeem(t, codes[3], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A offline: %+v", v)
		}
		a.Svc.Remote, b.Svc.Remote = remoteA, remoteB
		b.Sync(t)
		a.Sync(t)
		b.Sync(t)

		ctx := context.Background()
		day := app.Day(h.Now)
		dash, err := h.DB.DayActivity(ctx, day.Unix(), day.AddDate(0, 0, 1).Unix())
		if err != nil {
			t.Fatal(err)
		}
		rows := map[string]central.DeskDay{}
		for _, d := range dash.Desks {
			rows[d.Station] = d
		}
		if rows["Desk A"].Redeemed != 1 || rows["Desk B"].Redeemed != 3 || rows["Desk A"].Conflicts != 1 {
			t.Fatalf("dashboard %+v: the test's premise changed", dash.Desks)
		}
		for name, d := range map[string]*centraltest.Desk{"Desk A": a, "Desk B": b} {
			row := rows[name]
			st, err := d.Svc.Stats(ctx, "")
			if err != nil {
				t.Fatal(err)
			}
			if st.Issued != row.Issued || st.Redeemed != row.Redeemed {
				t.Errorf("%s stats: issued %d, redeemed %d; its dashboard row: issued %d, redeemed %d", name, st.Issued, st.Redeemed, row.Issued, row.Redeemed)
			}
			dc := d.CloseDay(t, false)
			f := dc.Figures
			if f.Issued != row.Issued || f.Redeemed != row.Redeemed || f.Conflicts != row.Conflicts {
				t.Errorf("%s close-day: issued %d, redeemed %d, conflicts %d; its dashboard row: issued %d, redeemed %d, conflicts %d",
					name, f.Issued, f.Redeemed, f.Conflicts, row.Issued, row.Redeemed, row.Conflicts)
			}
			byOperator := 0
			for _, n := range f.RedeemedByOperator {
				byOperator += n
			}
			if byOperator != row.Redeemed {
				t.Errorf("%s close-day: redeemed by operator %v, want %d in all", name, f.RedeemedByOperator, row.Redeemed)
			}
			// Every desk's figures, apart (read through the JSON the CLI
			// prints).
			var all struct {
				AllDesks *struct {
					SyncedAt int64 `json:"synced_at"`
					Redeemed int   `json:"redeemed"`
					Undone   int   `json:"undone"`
					Desks    []struct {
						Station  string `json:"station"`
						Issued   int    `json:"issued"`
						Redeemed int    `json:"redeemed"`
					} `json:"desks"`
				} `json:"all_desks"`
			}
			data, _ := json.Marshal(st)
			json.Unmarshal(data, &all)
			if all.AllDesks == nil || all.AllDesks.SyncedAt == 0 {
				t.Fatalf("%s stats %s: no figures of all desks", name, data)
			}
			// Labels handed over: A's one, B's three (the double use once).
			if all.AllDesks.Redeemed != 4 || all.AllDesks.Undone != 1 || len(all.AllDesks.Desks) != 2 {
				t.Errorf("%s all desks: %s, want 4 redeemed and 1 undone at 2 desks", name, data)
			}
			for _, dd := range all.AllDesks.Desks {
				if dd.Issued != rows[dd.Station].Issued {
					t.Errorf("%s all desks: %s issued %d, the dashboard %d", name, dd.Station, dd.Issued, rows[dd.Station].Issued)
				}
			}
		}
	})
}
