// Package centraltest is the harness of the tests that run a real
// qrdesk-server on loopback over either engine, with real desks (their own
// SQLite files) syncing with it: the server's API tests and the multi-desk
// system tests share it.
package centraltest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/central"
	"qrdesk/deskclient"
	"qrdesk/internal/serverdbtest"
	"qrdesk/internal/testclock"
	"qrdesk/protocol"
	"qrdesk/server"
	"qrdesk/serverdb"
	"qrdesk/store"
)

// TestNow is the pinned "now" of these tests (the suite's day, see
// internal/testclock): every time is derived from it.
var TestNow = testclock.Base()

// Harness is a real server on loopback over a real database, the
// deployment's key ring, and the codes of one desk's batch.
type Harness struct {
	URL   string
	DB    *serverdb.DB
	Keys  app.Keys
	Ring  string
	Codes []string
	Now   time.Time // the desks' and the server's clock: tests move it
	API   *server.API
	// Replica is the read replica the server reads the feed from
	// (NewWithReplica), else nil.
	Replica *serverdb.Replica
}

// New serves a new database of the engine and issues n codes at a
// desk with letter A (not uploaded).
func New(t testing.TB, dbPath func(t testing.TB) string, n int) *Harness {
	t.Helper()
	return newHarness(t, dbPath(t), "", serverdb.ReplicaOptions{}, n)
}

// NewWithReplica is New on the PostgreSQL database at primaryURL whose
// server reads the desks' feed and snapshots from the streaming read
// replica at replicaURL (qrdesk-server --replica-url); h.Replica is it.
func NewWithReplica(t testing.TB, primaryURL, replicaURL string, opt serverdb.ReplicaOptions, n int) *Harness {
	t.Helper()
	return newHarness(t, primaryURL, replicaURL, opt, n)
}

func newHarness(t testing.TB, path, replicaURL string, opt serverdb.ReplicaOptions, n int) *Harness {
	t.Helper()
	db, err := serverdb.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	keys, err := app.LoadKeys(filepath.Join(t.TempDir(), "qrdesk.key"), true)
	if err != nil {
		t.Fatal(err)
	}
	h := &Harness{DB: db, Keys: keys, Ring: keys.RingID(), Now: TestNow}
	now := func() time.Time { return h.Now }
	api := &server.API{Store: db, Log: slog.New(slog.DiscardHandler), Now: now, Metrics: server.NewMetrics(db, now)}
	if replicaURL != "" {
		if h.Replica, err = serverdb.OpenReplica(context.Background(), db, replicaURL, opt); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { h.Replica.Close() })
		api.Feed = h.Replica
		api.Metrics.WatchReplica(h.Replica)
	}
	srv := httptest.NewServer(api.Handler())
	t.Cleanup(srv.Close)
	h.URL, h.API = srv.URL, api
	if n > 0 {
		d := h.Desk(t, "Issuer", "A", "")
		_, codes, err := d.Svc.Issue(context.Background(), app.IssueRequest{Count: n})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range codes {
			h.Codes = append(h.Codes, c.String())
		}
	}
	return h
}

// Station enrols a station with a letter and returns its token.
func (h *Harness) Station(t testing.TB, name, letter string) string {
	t.Helper()
	return EnrolStation(t, h.DB, name, letter)
}

// EnrolStation enrols a station with a letter in db and returns its token
// ("qrd_test_" and the name), for tests that open the database themselves.
func EnrolStation(t testing.TB, db *serverdb.DB, name, letter string) string {
	t.Helper()
	token := "qrd_test_" + strings.ReplaceAll(name, " ", "_")
	if err := db.AddStation(context.Background(), central.Station{Name: name, Letter: letter, CreatedAt: 1}, server.HashToken(token)); err != nil {
		t.Fatal(err)
	}
	return token
}

// Desk is a real desk: its own SQLite file, the deployment's key ring, a
// clock pinned to the harness's, and (with a token) the server as Remote.
type Desk struct {
	Svc *app.Service
	DB  *store.DB
}

func (h *Harness) Desk(t testing.TB, name, letter, token string) *Desk {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "desk.DB"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	svc := app.NewService(db, h.Keys, nil)
	svc.Now = func() time.Time { return h.Now }
	if err := svc.BindKeyRing(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.UpdateSettings(context.Background(), map[string]string{"station_id": letter, "station_name": name, "serial_digits": "6"}, "test"); err != nil {
		t.Fatal(err)
	}
	if token != "" {
		svc.Remote = deskclient.New(h.URL, token)
	}
	return &Desk{Svc: svc, DB: db}
}

// Call sends one request and decodes the JSON answer.
func (h *Harness) Call(t testing.TB, method, path, token, ring string, body any, out any) int {
	t.Helper()
	return h.CallURL(t, h.URL, method, path, token, ring, body, out)
}

// CallURL is Call to the server at url (another process on the same
// database).
func (h *Harness) CallURL(t testing.TB, url, method, path, token, ring string, body any, out any) int {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		data, _ := json.Marshal(b)
		rd = bytes.NewReader(data)
	}
	req, _ := http.NewRequest(method, url+path, rd)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if ring != "" {
		req.Header.Set(protocol.RingHeader, ring)
	}
	// As a desk of this release: the server refuses a desk that names no
	// protocol (protocol 1) on every desk endpoint.
	req.Header.Set(protocol.Header, strconv.Itoa(protocol.Version))
	resp, err := HTTPClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if out != nil {
		json.NewDecoder(resp.Body).Decode(out)
	}
	return resp.StatusCode
}

// Upload sends the harness's codes with token (a station with letter A).
func (h *Harness) Upload(t testing.TB, token string) {
	t.Helper()
	var codes []map[string]any
	for _, c := range h.Codes {
		codes = append(codes, map[string]any{"code": c, "expire_at": 0, "created_at": h.Now.Unix() - 60})
	}
	var res struct {
		Added int
		Error string
	}
	if st := h.Call(t, "POST", "/v1/batches", token, h.Ring, map[string]any{"codes": codes}, &res); st != 200 || res.Added != len(codes) {
		t.Fatalf("upload: %d %+v", st, res)
	}
}

// Server asks the harness's database its named questions (serverdbtest).
func (h *Harness) Server(t testing.TB) *serverdbtest.Server { return serverdbtest.Of(t, h.DB) }

// Count runs a count query written with ? placeholders on either engine
// (serverdbtest.Server.Count).
func Count(t testing.TB, db *serverdb.DB, query string, args ...any) int {
	t.Helper()
	return serverdbtest.Of(t, db).Count(query, args...)
}

var Discard = slog.New(slog.DiscardHandler)

// NewClient is a client with the token h.Station gave the station name.
func NewClient(h *Harness, name string) *deskclient.Client {
	return deskclient.New(h.URL, "qrd_test_"+strings.ReplaceAll(name, " ", "_"))
}

// HTTPClient is the tests' HTTP client: like a desk, each of up to 128
// concurrent callers keeps its connection (the default client keeps two).
var HTTPClient = &http.Client{Transport: &http.Transport{MaxIdleConns: 128, MaxIdleConnsPerHost: 128}}

// Redeem, Sync, Issue and Count act at a desk and fail the test on error.
func (d *Desk) Redeem(t testing.TB, code, operator string) app.Verdict {
	t.Helper()
	v, err := d.Svc.Redeem(context.Background(), code, operator)
	if err != nil {
		t.Fatalf("redeem %s: %v", code, err)
	}
	return v
}

func (d *Desk) Sync(t testing.TB) {
	t.Helper()
	if _, err := d.Svc.Sync(context.Background()); err != nil {
		t.Fatalf("sync: %v", err)
	}
}

func (d *Desk) Issue(t testing.TB, n int) []string {
	t.Helper()
	_, codes, err := d.Svc.Issue(context.Background(), app.IssueRequest{Count: n})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(codes))
	for i, c := range codes {
		out[i] = c.String()
	}
	return out
}

func (d *Desk) Count(t testing.TB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := d.DB.SQL().QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// TwoDesks enrols desks A and B, issues codes at A and syncs both.
func TwoDesks(t *testing.T, dbPath func(t testing.TB) string, n int) (*Harness, *Desk, *Desk, []string) {
	h := New(t, dbPath, 0)
	a := h.Desk(t, "Desk A", "A", h.Station(t, "Desk A", "A"))
	b := h.Desk(t, "Desk B", "B", h.Station(t, "Desk B", "B"))
	codes := a.Issue(t, n)
	a.Sync(t)
	b.Sync(t)
	return h, a, b, codes
}
