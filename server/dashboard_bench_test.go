package server_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/central"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
	"qrdesk/web"
)

// BenchmarkDashboardToday: a busy day, 20,000 labels redeemed at 10
// desks between 06:00 and 18:00 (uploaded as offline events), then the
// day's figures from the store, and the whole Today page over HTTP, on
// each storage engine.
func BenchmarkDashboardToday(b *testing.B) {
	for _, engine := range []string{"SQLite", "PostgreSQL"} {
		b.Run(engine, func(b *testing.B) {
			path := b.TempDir() + "/server.DB"
			if engine == "PostgreSQL" {
				path = testpg.URL(b)
			}
			const n, desks = 20_000, 10
			h := centraltest.New(b, func(testing.TB) string { return path }, n)
			issuer := h.Station(b, "Desk 0", "A")
			h.Upload(b, issuer)
			tokens := []string{issuer}
			for d := 1; d < desks; d++ {
				tokens = append(tokens, h.Station(b, fmt.Sprintf("Desk %d", d), ""))
			}
			day := app.Day(h.Now)
			h.Now = day.Add(18 * time.Hour)
			for d, tok := range tokens {
				var evs []protocol.Event
				for i := d; i < n; i += desks {
					at := day.Add(6*time.Hour + time.Duration(i)*12*time.Hour/n).Unix()
					evs = append(evs, protocol.Event{EventID: fmt.Sprintf("busy-%06d", i), Kind: "redeem", Code: h.Codes[i], Operator: "op", At: at, Offline: true})
				}
				for len(evs) > 0 {
					k := min(len(evs), central.MaxEvents)
					if st := h.Call(b, "POST", "/v1/events", tok, h.Ring, map[string]any{"events": evs[:k]}, nil); st != 200 {
						b.Fatalf("events: %d", st)
					}
					evs = evs[k:]
				}
			}
			ctx := context.Background()
			from, to := day.Unix(), day.AddDate(0, 0, 1).Unix()
			if act, err := h.DB.DayActivity(ctx, from, to); err != nil || act.Total().Redeemed != n {
				b.Fatalf("day: %v, %d redeemed", err, act.Total().Redeemed)
			}

			dash := &web.Dashboard{Store: h.DB, Now: func() time.Time { return h.Now }}
			srv := httptest.NewServer(dash.Handler())
			defer srv.Close()
			h.DB.AddAdmin(ctx, central.Admin{Name: "manager"}, "x")
			id := "bench-session-id-0123456789abcdef"
			sum := sha256.Sum256([]byte(id))
			if err := h.DB.AddSession(ctx, central.Session{IDHash: hex.EncodeToString(sum[:]), Admin: "manager", CreatedAt: h.Now.Unix(), ExpiresAt: h.Now.Add(time.Hour).Unix()}, "x"); err != nil {
				b.Fatal(err)
			}
			page := func() {
				req, _ := http.NewRequest("GET", srv.URL+"/?date="+day.Format("2006-01-02"), nil)
				req.AddCookie(&http.Cookie{Name: "qrdesk_session", Value: id})
				resp, err := http.DefaultClient.Do(req)
				if err != nil || resp.StatusCode != 200 {
					b.Fatalf("Today: %v %v", resp, err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}

			b.ResetTimer()
			var storeTime, pageTime time.Duration
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				if _, err := h.DB.DayActivity(ctx, from, to); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				page()
				storeTime += t1.Sub(t0)
				pageTime += time.Since(t1)
			}
			b.ReportMetric(float64(storeTime.Microseconds())/1000/float64(b.N), "day_ms")
			b.ReportMetric(float64(pageTime.Microseconds())/1000/float64(b.N), "page_ms")
		})
	}
}
