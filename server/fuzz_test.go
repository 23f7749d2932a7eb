package server_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"testing"

	"qrdesk/central"
	"qrdesk/internal/testclock"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
	"qrdesk/server"
	"qrdesk/serverdb"
)

// fuzzRing is a well-formed key-ring id the fuzzed deployment is bound to.
const fuzzRing = "0123456789abcdef"

// FuzzRequests sends arbitrary bodies to every endpoint of a real server on
// a real database of each engine: no panic and no 5xx, whatever arrives.
func FuzzRequests(f *testing.F) {
	var handlers []http.Handler
	for _, path := range []string{filepath.Join(f.TempDir(), "server.DB"), testpg.URL(f)} {
		db, err := serverdb.Open(context.Background(), path)
		if err != nil {
			f.Fatal(err)
		}
		defer db.Close()
		if err := db.AddStation(context.Background(), central.Station{Name: "Desk 1", Letter: "A", CreatedAt: 1}, server.HashToken("qrd_fuzz")); err != nil {
			f.Fatal(err)
		}
		handlers = append(handlers, (&server.API{Store: db, Log: slog.New(slog.DiscardHandler), Now: testclock.Running(testclock.Base())}).Handler())
	}
	paths := []string{"/v1/enrol", "/v1/batches", "/v1/redeem", "/v1/events", "/v1/changes?after=", "/v1/conflicts?date="}
	const code = "WH-261129-A0001-23456789ABCD-A2345678X"
	f.Add(uint8(2), []byte(`{"event_id":"abcdefgh1","code":"23456789ABCD-A2345678X","operator":"li","at":5}`))
	f.Add(uint8(3), []byte(`{"events":[{"event_id":"abcdefgh2","kind":"redeem","code":"x","at":1}]}`))
	f.Add(uint8(3), []byte(`{"events":[{"event_id":"abcdefgh3","kind":"disable","code":"`+code+`","reason":"torn","at":1,"offline":true}]}`))
	f.Add(uint8(9), []byte(`{"events":[{"event_id":"abcdefgh4","kind":"enable","code":"`+code+`","at":1}]}`))
	f.Add(uint8(9), []byte(`{"events":[{"event_id":"abcdefgh5","kind":"redeem","code":"`+code+`","at":9223372036854775807,"offline":true}]}`))
	f.Add(uint8(9), []byte(`{"events":[{"event_id":"abcdefgh6","kind":"undo","code":"`+code+`","undoes":"abcdefgh5","reason":"wrong parcel","at":2}]}`))
	f.Add(uint8(1), []byte(`{"codes":[{"code":"`+code+`"}]}`))
	f.Add(uint8(7), []byte(`{"codes":[{"code":"`+code+`","expire_at":-1}]} trailing`))
	f.Add(uint8(4), []byte(`-1`))
	f.Add(uint8(5), []byte(`2026-02-30`))
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		path := paths[int(which)%len(paths)]
		h := handlers[int(which/16)%len(handlers)]
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
		req.Header.Set(protocol.RingHeader, fuzzRing)
		req.Header.Set(protocol.Header, strconv.Itoa(protocol.Version))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %s %q: %d %s", method, path, body, rec.Code, rec.Body.String())
		}
	})
}
