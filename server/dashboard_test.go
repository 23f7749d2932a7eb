package server_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/central"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// dashboardDay makes a day at two desks through the API: online and
// offline redemptions, refusals by each reason, a conflict, and one
// redemption three hours later. Desk 1 uploaded the labels.
func dashboardDay(t *testing.T, h *centraltest.Harness) (a, b string, conflictCode string) {
	t.Helper()
	a, b = h.Station(t, "Desk 1", "A"), h.Station(t, "Desk 2", "B")
	h.Upload(t, a)
	at := h.Now.Unix()
	redeem := func(tok, id, code string) protocol.Outcome {
		var r protocol.Result
		if st := h.Call(t, "POST", "/v1/redeem", tok, h.Ring, protocol.Event{EventID: id, Code: code, Operator: "op", At: at}, &r); st != 200 {
			t.Fatalf("redeem %s: status %d", id, st)
		}
		return r.Outcome
	}
	events := func(tok string, evs ...protocol.Event) {
		var res struct{ Results []protocol.Result }
		if st := h.Call(t, "POST", "/v1/events", tok, h.Ring, map[string]any{"events": evs}, &res); st != 200 {
			t.Fatalf("events: status %d", st)
		}
	}
	got := []protocol.Outcome{
		redeem(a, "dash-online-1", h.Codes[0]),
		redeem(b, "dash-online-2", h.Codes[0]), // already used
	}
	events(a, protocol.Event{EventID: "dash-disable-1", Kind: "disable", Code: h.Codes[1], Operator: "op", At: at, Reason: "torn"})
	got = append(got, redeem(b, "dash-online-3", h.Codes[1])) // disabled
	if want := []protocol.Outcome{"redeemed", "already_used", "disabled"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("outcomes %v, want %v", got, want)
	}
	// Both desks redeemed codes[2] offline: Desk 1's (at +30 s) is of record.
	events(b, protocol.Event{EventID: "dash-offline-b", Kind: "redeem", Code: h.Codes[2], Operator: "wang", At: at + 90, Offline: true})
	events(a, protocol.Event{EventID: "dash-offline-a", Kind: "redeem", Code: h.Codes[2], Operator: "li", At: at + 30, Offline: true})
	h.Now = h.Now.Add(3 * time.Hour)
	if o := redeem(a, "dash-online-4", h.Codes[3]); o != "redeemed" {
		t.Fatalf("later redemption: %s", o)
	}
	// A redemption taken back by its desk's supervisor is not counted.
	if o := redeem(a, "dash-online-5", h.Codes[4]); o != "redeemed" {
		t.Fatalf("redemption to undo: %s", o)
	}
	var res struct{ Results []protocol.Result }
	h.Call(t, "POST", "/v1/events", a, h.Ring, map[string]any{"events": []protocol.Event{{EventID: "dash-undo-5", Kind: "undo", Code: h.Codes[4], Operator: "boss", At: h.Now.Unix(), Reason: "wrong parcel", Undoes: "dash-online-5"}}}, &res)
	if len(res.Results) != 1 || res.Results[0].Outcome != "undone" {
		t.Fatalf("undo: %+v", res)
	}
	return a, b, h.Codes[2]
}

// TestDashboardStore: what the dashboard reads (a day per desk and per
// hour, the desks, conflicts and their resolutions, a label's history) and
// its administrators and sessions, on both engines.
func TestDashboardStore(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h := centraltest.New(t, dbPath, 10)
		start := h.Now
		_, _, conflictCode := dashboardDay(t, h)
		day := app.Day(start)

		t.Run("DayActivity", func(t *testing.T) {
			act, err := h.DB.DayActivity(ctx, day.Unix(), day.AddDate(0, 0, 1).Unix())
			if err != nil {
				t.Fatal(err)
			}
			want := []central.DeskDay{
				// codes[2]: Desk 1's offline redemption is of record, Desk 2's the double use.
				{Station: "Desk 1", Site: "main", Issued: 10, Redeemed: 3, Refused: map[protocol.Outcome]int{}},
				{Station: "Desk 2", Site: "main", Conflicts: 1, Refused: map[protocol.Outcome]int{"already_used": 1, "disabled": 1}},
			}
			if !reflect.DeepEqual(act.Desks, want) {
				t.Fatalf("desks\n got %+v\nwant %+v", act.Desks, want)
			}
			tot := act.Total()
			if tot.Issued != 10 || tot.Redeemed != 3 || tot.RefusedTotal() != 2 || tot.Conflicts != 1 {
				t.Fatalf("total %+v", tot)
			}
			hours := act.PerHour(day)
			h0 := start.Hour()
			if hours[h0] != 2 || hours[h0+3] != 1 || sum(hours) != 3 {
				t.Fatalf("per hour %v: want 2 at %d h (one offline at the desk's time), 1 at %d h", hours, h0, h0+3)
			}
			prev, err := h.DB.DayActivity(ctx, day.AddDate(0, 0, -1).Unix(), day.Unix())
			if err != nil || len(prev.Desks) != 0 || len(prev.Quarters) != 0 {
				t.Fatalf("the day before: %+v %v", prev, err)
			}
		})

		t.Run("OfflineUploadedNextDay", func(t *testing.T) {
			// A desk offline overnight uploads yesterday's redemption today:
			// it counts on the day it happened (the desk's time, plausible).
			h := centraltest.New(t, dbPath, 2)
			a := h.Station(t, "Desk 1", "A")
			h.Upload(t, a)
			at := h.Now.Unix()
			h.Now = h.Now.Add(24 * time.Hour)
			var res struct{ Results []protocol.Result }
			h.Call(t, "POST", "/v1/events", a, h.Ring, map[string]any{"events": []protocol.Event{{EventID: "overnight-1", Kind: "redeem", Code: h.Codes[0], Operator: "li", At: at + 5, Offline: true}}}, &res)
			if len(res.Results) != 1 || res.Results[0].Outcome != "redeemed" {
				t.Fatalf("upload: %+v", res)
			}
			for i, wantRedeemed := range []int{1, 0} {
				d := day.AddDate(0, 0, i)
				act, err := h.DB.DayActivity(ctx, d.Unix(), d.AddDate(0, 0, 1).Unix())
				if err != nil {
					t.Fatal(err)
				}
				if got := act.Total().Redeemed; got != wantRedeemed {
					t.Fatalf("day %d: %d redeemed, want %d", i, got, wantRedeemed)
				}
			}
		})

		t.Run("Desks", func(t *testing.T) {
			desks, head, err := h.DB.Desks(ctx)
			if err != nil || len(desks) != 2 {
				t.Fatalf("desks %+v %v", desks, err)
			}
			if head < 10 {
				t.Fatalf("feed head %d: want at least the 10 uploaded codes", head)
			}
			for _, d := range desks {
				if d.LastSeenAt != h.Now.Unix() && d.Name == "Desk 1" {
					t.Fatalf("%s last seen %d, want its latest event %d", d.Name, d.LastSeenAt, h.Now.Unix())
				}
				if d.LastSeenAt == 0 || d.FeedBehind(head) != head {
					t.Fatalf("desk %+v (head %d)", d, head)
				}
			}
			if !desks[0].Online(h.Now) || desks[0].Online(h.Now.Add(central.OnlineWithin+time.Second)) {
				t.Fatal("online: seen now is online, seen over 2 minutes ago is not")
			}
		})

		t.Run("Conflicts", func(t *testing.T) {
			list, err := h.DB.ConflictRecords(ctx, day.Unix(), day.AddDate(0, 0, 1).Unix())
			if err != nil || len(list) != 1 {
				t.Fatalf("conflicts %+v %v", list, err)
			}
			k := list[0]
			if k.Code != conflictCode || k.FirstStation != "Desk 1" || k.SecondStation != "Desk 2" || k.Resolved() {
				t.Fatalf("conflict %+v", k)
			}
			var br *central.BadRequest
			if err := h.DB.ResolveConflict(ctx, k.ID, central.Resolution{Admin: "manager", Note: "  ", At: 1}); !errors.As(err, &br) {
				t.Fatalf("empty note: %v", err)
			}
			if err := h.DB.ResolveConflict(ctx, k.ID+1000, central.Resolution{Admin: "manager", Note: "x", At: 1}); !errors.Is(err, central.ErrNoConflict) {
				t.Fatalf("unknown conflict: %v", err)
			}
			notes := []string{"customer had two parcels", "checked with Desk 2; 'quotes' and ? stay"}
			for i, n := range notes {
				if err := h.DB.ResolveConflict(ctx, k.ID, central.Resolution{Admin: "manager", Note: n, At: h.Now.Unix() + int64(i)}); err != nil {
					t.Fatal(err)
				}
			}
			list, _ = h.DB.ConflictRecords(ctx, day.Unix(), day.AddDate(0, 0, 1).Unix())
			if got := list[0].Resolutions; len(got) != 2 || got[0].Note != notes[0] || got[1].Note != notes[1] || got[1].Admin != "manager" {
				t.Fatalf("resolutions %+v: both kept, oldest first", got)
			}
			if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM admin_log WHERE action = 'resolve' AND subject = ?`, conflictCode); n != 2 {
				t.Fatalf("%d resolutions in the audit trail, want 2", n)
			}
		})

		t.Run("CodeHistory", func(t *testing.T) {
			hist, err := h.DB.CodeHistory(ctx, conflictCode)
			if err != nil {
				t.Fatal(err)
			}
			if hist.Code.Status != "used" || hist.Code.UsedStation != "Desk 1" || hist.Code.IssuedBy != "Desk 1" {
				t.Fatalf("state %+v", hist.Code)
			}
			var seen []string
			for _, e := range hist.Events {
				seen = append(seen, fmt.Sprintf("%s %s %s %v", e.Station, e.Kind, e.Outcome, e.Offline))
			}
			if want := []string{"Desk 2 redeem redeemed true", "Desk 1 redeem conflict true"}; !reflect.DeepEqual(seen, want) {
				t.Fatalf("events %q, want %q", seen, want)
			}
			if len(hist.Conflicts) != 1 || len(hist.Conflicts[0].Resolutions) != 2 {
				t.Fatalf("conflicts %+v", hist.Conflicts)
			}
			if _, err := h.DB.CodeHistory(ctx, "WH-261129-Z0001-NOTANYCODE12-K0000000"); !errors.Is(err, central.ErrNoCode) {
				t.Fatalf("unknown label: %v", err)
			}
		})

		t.Run("Admins", func(t *testing.T) {
			now := h.Now.Unix()
			if err := h.DB.AddAdmin(ctx, central.Admin{Name: "manager", CreatedAt: now}, "hash1"); err != nil {
				t.Fatal(err)
			}
			if err := h.DB.AddAdmin(ctx, central.Admin{Name: "manager", CreatedAt: now}, "hash2"); !errors.Is(err, central.ErrAdminExists) {
				t.Fatalf("same name again: %v", err)
			}
			var br *central.BadRequest
			if err := h.DB.AddAdmin(ctx, central.Admin{Name: "li wei", CreatedAt: now}, "h"); !errors.As(err, &br) {
				t.Fatalf("a name with a space: %v", err)
			}
			if hash, err := h.DB.AdminPasswordHash(ctx, "manager"); err != nil || hash != "hash1" {
				t.Fatalf("hash %q %v", hash, err)
			}
			s := central.Session{IDHash: "abc", Admin: "manager", CreatedAt: now, ExpiresAt: now + 60}
			if err := h.DB.AddSession(ctx, s, "hash2"); !errors.Is(err, central.ErrPasswordChanged) {
				t.Fatalf("a session for a hash that is not the administrator's: %v", err)
			}
			if err := h.DB.AddSession(ctx, s, "hash1"); err != nil {
				t.Fatal(err)
			}
			if got, err := h.DB.Session(ctx, "abc", now+59); err != nil || got != s {
				t.Fatalf("session %+v %v", got, err)
			}
			if _, err := h.DB.Session(ctx, "abc", now+60); !errors.Is(err, central.ErrNoSession) {
				t.Fatalf("expired session: %v", err)
			}
			if err := h.DB.ResetAdminPassword(ctx, "manager", "hash3", now); err != nil {
				t.Fatal(err)
			}
			if hash, _ := h.DB.AdminPasswordHash(ctx, "manager"); hash != "hash3" {
				t.Fatalf("hash after reset %q", hash)
			}
			if _, err := h.DB.Session(ctx, "abc", now); !errors.Is(err, central.ErrNoSession) {
				t.Fatalf("session after a password reset: %v", err)
			}
			if err := h.DB.ResetAdminPassword(ctx, "nobody", "h", now); !errors.Is(err, central.ErrNoAdmin) {
				t.Fatalf("reset of no one: %v", err)
			}
			if err := h.DB.AddSession(ctx, s, "hash1"); !errors.Is(err, central.ErrPasswordChanged) {
				t.Fatalf("a session for the hash before the reset: %v", err)
			}
			if err := h.DB.AddSession(ctx, s, "hash3"); err != nil {
				t.Fatal(err)
			}
			if err := h.DB.RemoveAdmin(ctx, "manager", now); err != nil {
				t.Fatal(err)
			}
			if _, err := h.DB.Session(ctx, "abc", now); !errors.Is(err, central.ErrNoSession) {
				t.Fatalf("session of a removed administrator: %v", err)
			}
			if err := h.DB.RemoveAdmin(ctx, "manager", now); !errors.Is(err, central.ErrNoAdmin) {
				t.Fatalf("removed twice: %v", err)
			}
			if _, err := h.DB.AdminPasswordHash(ctx, "manager"); !errors.Is(err, central.ErrNoAdmin) {
				t.Fatalf("hash of a removed administrator: %v", err)
			}
		})
	})
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// TestDashboardStoreBySite: with Desk 2 in site North, the dashboard's
// reads say each desk's, conflict's, label's and report's site, and a day
// read for some sites holds only their desks and their redemptions per
// quarter hour.
func TestDashboardStoreBySite(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h := centraltest.New(t, dbPath, 10)
		start := h.Now
		_, _, conflictCode := dashboardDay(t, h)
		day := app.Day(start)
		if err := h.DB.AddSite(ctx, "North", 1); err != nil {
			t.Fatal(err)
		}
		if err := h.DB.SetStationSite(ctx, "Desk 2", "North"); err != nil {
			t.Fatal(err)
		}
		if err := h.DB.SetDeskStatus(ctx, central.DeskStatus{Station: "Desk 2", StatusReport: central.StatusReport{Date: day.Format(app.DateLayout), PrintJobs: 1, At: 1}, ReceivedAt: 1}); err != nil {
			t.Fatal(err)
		}
		ids := map[string]int64{}
		sites, err := h.DB.Sites(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sites {
			ids[s.Name] = s.ID
		}

		from, to := day.Unix(), day.AddDate(0, 0, 1).Unix()
		for _, tc := range []struct {
			sites    []int64
			desks    []string // station/site
			redeemed int      // in the quarters
		}{
			{nil, []string{"Desk 1/main", "Desk 2/North"}, 3},
			{[]int64{ids["main"], ids["North"]}, []string{"Desk 1/main", "Desk 2/North"}, 3},
			// codes[2], used offline at both desks, counts for Desk 1,
			// whose redemption is of record (earlier), not for Desk 2,
			// which synced first.
			{[]int64{ids["main"]}, []string{"Desk 1/main"}, 3},
			{[]int64{ids["North"]}, []string{"Desk 2/North"}, 0},
			{[]int64{}, nil, 0},
		} {
			act, err := h.DB.SiteDayActivity(ctx, from, to, tc.sites)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range act.Desks {
				got = append(got, d.Station+"/"+d.Site)
			}
			n := 0
			for _, q := range act.Quarters {
				n += q
			}
			if !reflect.DeepEqual(got, tc.desks) || n != tc.redeemed || act.Total().Redeemed != tc.redeemed {
				t.Errorf("sites %v: desks %v, %d redeemed in the quarters (total %d); want %v and %d", tc.sites, got, n, act.Total().Redeemed, tc.desks, tc.redeemed)
			}
		}
		all, err := h.DB.DayActivity(ctx, from, to)
		if err != nil {
			t.Fatal(err)
		}
		if len(all.Desks) != 2 || all.Desks[1].Site != "North" {
			t.Errorf("DayActivity (every site): %+v", all.Desks)
		}

		desks, _, err := h.DB.Desks(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(desks) != 2 || desks[0].Site != "main" || desks[1].Site != "North" || desks[1].SiteID != ids["North"] {
			t.Errorf("Desks: %+v", desks)
		}
		reports, err := h.DB.DeskStatuses(ctx, day.Format(app.DateLayout))
		if err != nil || len(reports) != 1 || reports[0].Site != "North" {
			t.Errorf("DeskStatuses: %+v %v", reports, err)
		}
		// The conflict and the label are Desk 1's upload: site main, wherever
		// they were redeemed.
		list, err := h.DB.ConflictRecords(ctx, from, to)
		if err != nil || len(list) != 1 || list[0].Site != "main" {
			t.Fatalf("ConflictRecords: %+v %v", list, err)
		}
		if site, err := h.DB.ConflictSite(ctx, list[0].ID); err != nil || site != "main" {
			t.Errorf("ConflictSite: %q %v", site, err)
		}
		if _, err := h.DB.ConflictSite(ctx, list[0].ID+1000); !errors.Is(err, central.ErrNoConflict) {
			t.Errorf("ConflictSite of no conflict: %v", err)
		}
		hist, err := h.DB.CodeHistory(ctx, conflictCode)
		if err != nil || hist.Site != "main" || len(hist.Conflicts) != 1 || hist.Conflicts[0].Site != "main" {
			t.Errorf("CodeHistory: site %q, conflicts %+v, %v", hist.Site, hist.Conflicts, err)
		}
	})
}
