package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/central"
	"qrdesk/internal/testclock"
	"qrdesk/internal/testpg"
	"qrdesk/server"
	"qrdesk/serverdb"
	"qrdesk/store"
)

func TestMain(m *testing.M) { testpg.Main(m) }

// testNow is the pinned "now" of these tests (the suite's day, see
// internal/testclock): every time is derived from it.
var testNow = testclock.Base()

// centralHarness is a real server on loopback over a real database, the
// deployment's key ring, and the codes of one desk's batch.
type centralHarness struct {
	url   string
	db    *serverdb.DB
	keys  app.Keys
	ring  string
	codes []string
	now   time.Time
	api   *server.API
}

// newCentral serves a new database of the engine and issues n codes at a
// desk with letter A (not uploaded).
func newCentral(t testing.TB, dbPath func(t testing.TB) string, n int) *centralHarness {
	t.Helper()
	db, err := serverdb.Open(context.Background(), dbPath(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	keys, err := app.LoadKeys(filepath.Join(t.TempDir(), "qrdesk.key"), true)
	if err != nil {
		t.Fatal(err)
	}
	h := &centralHarness{db: db, keys: keys, ring: keys.RingID(), now: testNow}
	now := func() time.Time { return h.now }
	api := &server.API{Store: db, Log: slog.New(slog.DiscardHandler), Now: now, Metrics: server.NewMetrics(db, now)}
	srv := httptest.NewServer(api.Handler())
	t.Cleanup(srv.Close)
	h.url, h.api = srv.URL, api
	if n > 0 {
		d := h.desk(t, "Issuer", "A", "")
		_, codes, err := d.svc.Issue(context.Background(), app.IssueRequest{Count: n})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range codes {
			h.codes = append(h.codes, c.String())
		}
	}
	return h
}

// station enrols a station with a letter and returns its token.
func (h *centralHarness) station(t testing.TB, name, letter string) string {
	t.Helper()
	token := "qrd_test_" + strings.ReplaceAll(name, " ", "_")
	if err := h.db.AddStation(context.Background(), central.Station{Name: name, Letter: letter, CreatedAt: 1}, server.HashToken(token)); err != nil {
		t.Fatal(err)
	}
	return token
}

// desk is a real desk: its own SQLite file, the deployment's key ring, a
// clock pinned to the harness's, and (with a token) the server as Remote.
type desk struct {
	svc *app.Service
	db  *store.DB
}

func (h *centralHarness) desk(t testing.TB, name, letter, token string) *desk {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "desk.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	svc := app.NewService(db, h.keys, nil)
	svc.Now = func() time.Time { return h.now }
	if err := svc.BindKeyRing(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.UpdateSettings(context.Background(), map[string]string{"station_id": letter, "station_name": name, "serial_digits": "6"}, "test"); err != nil {
		t.Fatal(err)
	}
	if token != "" {
		svc.Remote = server.NewClient(h.url, token)
	}
	return &desk{svc: svc, db: db}
}

// call sends one request and decodes the JSON answer.
func (h *centralHarness) call(t testing.TB, method, path, token, ring string, body any, out any) int {
	t.Helper()
	return h.callURL(t, h.url, method, path, token, ring, body, out)
}

// callURL is call to the server at url (another process on the same
// database).
func (h *centralHarness) callURL(t testing.TB, url, method, path, token, ring string, body any, out any) int {
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
		req.Header.Set(server.RingHeader, ring)
	}
	resp, err := keepAlive.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if out != nil {
		json.NewDecoder(resp.Body).Decode(out)
	}
	return resp.StatusCode
}

// upload sends the harness's codes with token (a station with letter A).
func (h *centralHarness) upload(t testing.TB, token string) {
	t.Helper()
	var codes []map[string]any
	for _, c := range h.codes {
		codes = append(codes, map[string]any{"code": c, "expire_at": 0, "created_at": h.now.Unix() - 60})
	}
	var res struct {
		Added int
		Error string
	}
	if st := h.call(t, "POST", "/v1/batches", token, h.ring, map[string]any{"codes": codes}, &res); st != 200 || res.Added != len(codes) {
		t.Fatalf("upload: %d %+v", st, res)
	}
}

// count runs a count query written with ? placeholders on either engine.
func count(t testing.TB, db *serverdb.DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRowForTests(query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

var discard = slog.New(slog.DiscardHandler)

// newClient is a client with the token h.station gave the station name.
func newClient(h *centralHarness, name string) *server.Client {
	return server.NewClient(h.url, "qrd_test_"+strings.ReplaceAll(name, " ", "_"))
}

// keepAlive is the tests' HTTP client: like a desk, each of up to 128
// concurrent callers keeps its connection (the default client keeps two).
var keepAlive = &http.Client{Transport: &http.Transport{MaxIdleConns: 128, MaxIdleConnsPerHost: 128}}

// redeem, sync, issue and count act at a desk and fail the test on error.
func (d *desk) redeem(t testing.TB, code, operator string) app.Verdict {
	t.Helper()
	v, err := d.svc.Redeem(context.Background(), code, operator)
	if err != nil {
		t.Fatalf("redeem %s: %v", code, err)
	}
	return v
}

func (d *desk) sync(t testing.TB) {
	t.Helper()
	if _, err := d.svc.Sync(context.Background()); err != nil {
		t.Fatalf("sync: %v", err)
	}
}

func (d *desk) issue(t testing.TB, n int) []string {
	t.Helper()
	_, codes, err := d.svc.Issue(context.Background(), app.IssueRequest{Count: n})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(codes))
	for i, c := range codes {
		out[i] = c.String()
	}
	return out
}

func (d *desk) count(t testing.TB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := d.db.SQL().QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// twoDesks enrols desks A and B, issues codes at A and syncs both.
func twoDesks(t *testing.T, dbPath func(t testing.TB) string, n int) (*centralHarness, *desk, *desk, []string) {
	h := newCentral(t, dbPath, 0)
	a := h.desk(t, "Desk A", "A", h.station(t, "Desk A", "A"))
	b := h.desk(t, "Desk B", "B", h.station(t, "Desk B", "B"))
	codes := a.issue(t, n)
	a.sync(t)
	b.sync(t)
	return h, a, b, codes
}
