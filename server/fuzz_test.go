package server_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"qrdesk/internal/testclock"
	"qrdesk/server"
	"qrdesk/store"
)

// FuzzRequests sends arbitrary bodies to every endpoint of a real server on
// a real database: no panic and no 5xx, whatever arrives.
func FuzzRequests(f *testing.F) {
	db, err := store.OpenCentral(context.Background(), filepath.Join(f.TempDir(), "server.db"))
	if err != nil {
		f.Fatal(err)
	}
	defer db.Close()
	db.AddStation(context.Background(), "Desk 1", server.HashToken("qrd_fuzz"), 1)
	now := testclock.Running(testclock.Base())
	h := (&server.API{Store: db, Log: slog.New(slog.DiscardHandler), Now: now}).Handler()
	paths := []string{"/v1/enrol", "/v1/batches", "/v1/redeem", "/v1/events", "/v1/changes?after=", "/v1/conflicts?date="}
	f.Add(uint8(2), []byte(`{"event_id":"abcdefgh1","code":"23456789ABCD-A2345678X","operator":"li","at":5}`))
	f.Add(uint8(3), []byte(`{"events":[{"event_id":"abcdefgh2","kind":"redeem","code":"x","at":1}]}`))
	f.Add(uint8(1), []byte(`{"codes":[{"code":"WH-261129-A0001-23456789ABCD-A2345678X"}]}`))
	f.Add(uint8(4), []byte(`-1`))
	f.Add(uint8(5), []byte(`2026-02-30`))
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		path := paths[int(which)%len(paths)]
		method := "POST"
		if path[len(path)-1] == '=' {
			method, path = "GET", path+string(body)
			body = nil
		}
		req, err := http.NewRequest(method, path, bytes.NewReader(body))
		if err != nil {
			return // not even a URL
		}
		req.Header.Set("Authorization", "Bearer qrd_fuzz")
		req.Header.Set(server.RingHeader, "fuzzring")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %s %q: %d %s", method, path, body, rec.Code, rec.Body.String())
		}
	})
}
