package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/central"
	"qrdesk/deskclient"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// TestDeskStatusStore: the latest report per desk and day is kept on both
// engines; a late report made earlier does not replace a newer one, and
// the Desks page reads the events waiting of the newest report.
func TestDeskStatusStore(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 0)
		h.Station(t, "Desk 1", "A")
		h.Station(t, "Desk 2", "B")
		ctx := context.Background()
		now := h.Now.Unix()
		yesterday := app.FormatDate(h.Now.AddDate(0, 0, -1))
		for _, s := range []central.DeskStatus{
			{Station: "Desk 1", StatusReport: h.Report(4, 2, 30, 1, now-60), ReceivedAt: now - 60},
			{Station: "Desk 1", StatusReport: h.Report(0, 3, 40, 1, now), ReceivedAt: now},
			{Station: "Desk 1", StatusReport: h.Report(9, 1, 10, 0, now-120), ReceivedAt: now + 5}, // a retry overtaken
			{Station: "Desk 2", StatusReport: app.DeskReport{Date: yesterday, EventsWaiting: 7, At: now - 86400}, ReceivedAt: now - 86400},
		} {
			if err := h.DB.SetDeskStatus(ctx, s); err != nil {
				t.Fatal(err)
			}
		}
		got, err := h.DB.DeskStatuses(ctx, app.FormatDate(h.Now))
		if err != nil {
			t.Fatal(err)
		}
		want := central.DeskStatus{Station: "Desk 1", StatusReport: h.Report(0, 3, 40, 1, now), ReceivedAt: now, Site: central.DefaultSite}
		if len(got) != 1 || got[0] != want {
			t.Fatalf("today's reports\n got %+v\nwant [%+v]", got, want)
		}
		desks, _, err := h.DB.Desks(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range []struct {
			waiting int
			at      int64
		}{{0, now}, {7, now - 86400}} {
			if desks[i].EventsWaiting != w.waiting || desks[i].StatusAt != w.at || desks[i].LastSeenAt != w.at {
				t.Errorf("%s: waiting %d reported at %d (seen %d), want %d at %d", desks[i].Name, desks[i].EventsWaiting, desks[i].StatusAt, desks[i].LastSeenAt, w.waiting, w.at)
			}
		}
	})
}

// TestDeskStatusAPI: POST /v1/status validates with clear 400s, refuses
// unknown and revoked tokens as every endpoint does, and keeps the latest.
func TestDeskStatusAPI(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 0)
		a := h.Station(t, "Desk 1", "A")
		gone := h.Station(t, "Old desk", "")
		h.DB.RevokeStation(context.Background(), "Old desk", 2)
		now := h.Now.Unix()
		ok := h.Report(2, 3, 40, 1, now)
		far := ok
		far.Date = app.FormatDate(h.Now.AddDate(0, 0, 3))
		for _, tc := range []struct {
			name, token string
			body        any
			status      int
			code, say   string
		}{
			{"NoToken", "", ok, 401, "unknown_token", "bearer"},
			{"WrongToken", "qrd_nope", ok, 401, "unknown_token", "unknown"},
			{"RevokedToken", gone, ok, 403, "revoked", "revoked"},
			{"MalformedJSON", a, `{"date": `, 400, "invalid", "malformed JSON"},
			{"UnknownField", a, `{"date": "2026-11-29", "printed": 1}`, 400, "invalid", "malformed JSON"},
			{"BadDate", a, app.DeskReport{Date: "29.11.2026", At: now}, 400, "invalid", "YYYY-MM-DD"},
			{"FarDate", a, far, 400, "invalid", "desk's clock"},
			{"Negative", a, h.Report(-1, 0, 0, 0, now), 400, "invalid", "events_waiting must be 0 to"},
			{"TooMany", a, h.Report(0, 0, central.MaxStatusCount+1, 0, now), 400, "invalid", "labels_printed must be 0 to"},
			{"MoreReprintsThanJobs", a, h.Report(0, 1, 5, 2, now), 400, "invalid", "cannot exceed print_jobs"},
			{"NoTime", a, h.Report(0, 0, 0, 0, 0), 400, "invalid", "at must be"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				var out struct{ Error, Code string }
				st := h.Call(t, "POST", "/v1/status", tc.token, h.Ring, tc.body, &out)
				if st != tc.status || out.Code != tc.code || !strings.Contains(out.Error, tc.say) {
					t.Fatalf("status %d %q %q, want %d %q mentioning %q", st, out.Code, out.Error, tc.status, tc.code, tc.say)
				}
			})
		}
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM desk_status`); n != 0 {
			t.Fatalf("refused reports stored %d rows", n)
		}
		for _, r := range []app.DeskReport{h.Report(5, 1, 10, 0, now-30), ok} {
			if st := h.Call(t, "POST", "/v1/status", a, h.Ring, r, nil); st != 200 {
				t.Fatalf("report: %d", st)
			}
		}
		got, err := h.DB.DeskStatuses(context.Background(), ok.Date)
		if err != nil || len(got) != 1 || got[0].StatusReport != ok || got[0].Station != "Desk 1" || got[0].ReceivedAt != now {
			t.Fatalf("after two reports: %+v %v, want the second", got, err)
		}
		if w := value(scrape(t, h.URL), "qrdesk_desk_outbox_events"); w != 2 {
			t.Fatalf("qrdesk_desk_outbox_events %v, want 2", w)
		}
	})
}

// TestDeskReportsAfterSync: a real desk that printed labels (one job a
// reprint) shows them on the server after a sync, with its outbox empty.
// A server without /v1/status (404) or one refusing the report does not
// fail the sync, and the events still go.
func TestDeskReportsAfterSync(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 0)
		ctx := context.Background()
		d := h.Desk(t, "Desk 2", "B", h.Station(t, "Desk 2", "B"))
		b, _, err := d.Svc.Issue(ctx, app.IssueRequest{Count: 12})
		if err != nil {
			t.Fatal(err)
		}
		recs, err := d.Svc.BatchCodes(ctx, b.ID)
		if err != nil {
			t.Fatal(err)
		}
		print := func(recs []app.CodeRecord, reprint bool) {
			t.Helper()
			noPrinter := func([]app.CodeRecord) (func() error, error) { return func() error { return nil }, nil }
			if _, err := d.Svc.Print(ctx, recs, app.PrintJob{Operator: "li", Reprint: reprint}, nil, noPrinter); err != nil {
				t.Fatal(err)
			}
		}
		print(recs, false)
		recs, _ = d.Svc.BatchCodes(ctx, b.ID) // now with their print counts
		print(recs[:2], true)
		if _, err := d.Svc.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		got, err := h.DB.DeskStatuses(ctx, app.FormatDate(h.Now))
		want := central.DeskStatus{Station: "Desk 2", ReceivedAt: h.Now.Unix(), StatusReport: h.Report(0, 2, 12, 1, h.Now.Unix()), Site: central.DefaultSite}
		if err != nil || len(got) != 1 || got[0] != want {
			t.Fatalf("after a sync the server has %+v %v\nwant [%+v]", got, err, want)
		}
		// A print is reported at the next sync, though the window's syncs
		// reuse the count of the print figures for a minute.
		h.Now = h.Now.Add(5 * time.Second)
		print(recs[2:4], true)
		if _, err := d.Svc.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		want.StatusReport, want.ReceivedAt = h.Report(0, 3, 12, 2, h.Now.Unix()), h.Now.Unix()
		if got, _ := h.DB.DeskStatuses(ctx, want.Date); len(got) != 1 || got[0] != want {
			t.Fatalf("after a reprint and a sync the server has %+v\nwant [%+v]", got, want)
		}
		// Unchanged figures are not sent again at every sync, only after
		// five minutes (a thousand desks syncing every 5 s would be 200
		// writes a second on the server).
		h.Now = h.Now.Add(5 * time.Second)
		if _, err := d.Svc.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		if got, _ := h.DB.DeskStatuses(ctx, want.Date); len(got) != 1 || got[0] != want {
			t.Fatalf("unchanged figures were sent again: %+v\nwant [%+v]", got, want)
		}
		h.Now = h.Now.Add(5 * time.Minute)
		if _, err := d.Svc.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		want.StatusReport, want.ReceivedAt = h.Report(0, 3, 12, 2, h.Now.Unix()), h.Now.Unix()
		if got, _ := h.DB.DeskStatuses(ctx, want.Date); len(got) != 1 || got[0] != want {
			t.Fatalf("five minutes later the server has %+v\nwant [%+v]", got, want)
		}

		for i, tc := range []struct {
			name   string
			answer func(w http.ResponseWriter)
		}{
			{"OldServer", func(w http.ResponseWriter) { http.NotFound(w, nil) }},
			{"Refused", func(w http.ResponseWriter) {
				w.WriteHeader(http.StatusBadRequest)
				w.Write([]byte(`{"error": "no", "code": "invalid"}`))
			}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.URL.Path == "/v1/status" {
						tc.answer(w)
						return
					}
					h.API.Handler().ServeHTTP(w, r)
				}))
				t.Cleanup(srv.Close)
				d.Svc.Remote = deskclient.New(srv.URL, "qrd_test_Desk_2")
				h.Now = h.Now.Add(time.Minute)
				if _, err := d.Svc.SetDisabled(ctx, recs[len(recs)-1-i].Code, true, "torn", "li"); err != nil {
					t.Fatal(err)
				}
				st, err := d.Svc.Sync(ctx)
				if err != nil || st.Waiting != 0 {
					t.Fatalf("sync with the report answered by %s: %+v, %v; want the events sent", tc.name, st, err)
				}
				if got, _ := h.DB.DeskStatuses(ctx, want.Date); len(got) != 1 || got[0] != want {
					t.Fatalf("the report went past the stand-in server: %+v", got)
				}
			})
		}
	})
}
