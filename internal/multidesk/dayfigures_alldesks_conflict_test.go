package multidesk_test

import (
	"context"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// Desk B hands label X over offline at 10:00. At 10:01 desk A, online,
// redeems X too (the server has not heard of B's use). B syncs: a
// conflict, B's use first, so B's is the redemption of record (design.md:
// "the redemption of record is the conflict's first use on every page,
// figure and CSV"). A syncs. Expected: the "all desks" figures at desk A
// (qrdesk stats, below "all desks, as known at the last sync") equal the
// dashboard's rows, at both desks. A's copy keeps X as used at A (the
// parcel went from A too): its all-desks list counted X for A, the
// dashboard for B; now X counts for B everywhere, once.
func TestAllDesksFiguresAfterAConflictMatchTheDashboard(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 2)
		b.Offline(func() { b.Redeem(t, codes[0], "li") })
		h.Now = h.Now.Add(time.Minute)
		if v := a.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A online: %+v", v)
		}
		b.Sync(t)
		a.Sync(t)
		if v := a.Redeem(t, codes[1], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A online, a second label: %+v", v)
		}
		b.Sync(t)
		a.Sync(t)
		date := app.FormatDate(h.Now)
		want := map[string]int{"Desk A": dashboardRow(t, h, "Desk A", date).Redeemed, "Desk B": dashboardRow(t, h, "Desk B", date).Redeemed}
		if want["Desk A"] != 1 || want["Desk B"] != 1 {
			t.Fatalf("the dashboard's rows: A %d, B %d, want 1 each (B's use of the first label is the record)", want["Desk A"], want["Desk B"])
		}
		for name, d := range map[string]*centraltest.Desk{"desk A": a, "desk B": b} {
			st, err := d.Svc.Stats(ctx, "")
			if err != nil {
				t.Fatal(err)
			}
			if st.AllDesks == nil {
				t.Fatalf("%s has no all-desks figures after syncing", name)
			}
			got := map[string]int{}
			for _, dc := range st.AllDesks.Desks {
				got[dc.Station] = dc.Redeemed
			}
			if got["Desk A"] != want["Desk A"] || got["Desk B"] != want["Desk B"] || st.AllDesks.Redeemed != 2 {
				t.Errorf("after a conflict (B first offline, A second online) %s's all-desks figures say redeemed A %d, B %d (total %d); the dashboard's rows A %d, B %d", name, got["Desk A"], got["Desk B"], st.AllDesks.Redeemed, want["Desk A"], want["Desk B"])
			}
		}
	})
}
