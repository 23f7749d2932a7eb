package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"qrdesk/app"
	"qrdesk/central"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testclock"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
	"qrdesk/server"
	"qrdesk/serverdb"
	"qrdesk/store"
	"qrdesk/web"
)

// realCost is the password cost a release uses (the tests lower it).
var realCost int

func TestMain(m *testing.M) {
	realCost = web.PasswordCost
	web.PasswordCost = bcrypt.MinCost
	testpg.Main(m)
}

func sqlitePath(t testing.TB) string { return filepath.Join(t.TempDir(), "server.db") }

// site is a real qrdesk-server (API and dashboard) on a loopback listener
// over a real database, with the deployment's key ring.
type site struct {
	url   string
	db    *serverdb.DB
	api   *server.API
	dash  *web.Dashboard
	keys  app.Keys
	ring  string
	clock *testclock.Clock // the site's pinned clock; a test moves it
}

// newSite serves a new database; tls serves HTTPS.
func newSite(t testing.TB, path string, tls bool) *site {
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
	s := &site{db: db, keys: keys, ring: keys.RingID(), clock: testclock.New(testclock.Base())}
	s.api = &server.API{Store: db, Log: discard, Now: s.clock.Now}
	s.dash = &web.Dashboard{Store: db, Log: discard, Now: s.clock.Now, PendingAcks: s.api.PendingAcks, Refresh: time.Second}
	s.api.Web = s.dash.Handler()
	var srv *httptest.Server
	if tls {
		srv = httptest.NewTLSServer(s.api.Handler())
	} else {
		srv = httptest.NewServer(s.api.Handler())
	}
	t.Cleanup(srv.Close)
	s.url = srv.URL
	return s
}

// admin adds an administrator and returns the password.
func (s *site) admin(t testing.TB, name string) string {
	t.Helper()
	password, err := web.NewPassword()
	if err != nil {
		t.Fatal(err)
	}
	hash, err := web.HashPassword(password)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.db.AddAdmin(context.Background(), central.Admin{Name: name, CreatedAt: s.clock.Now().Unix()}, hash); err != nil {
		t.Fatal(err)
	}
	return password
}

// station enrols a desk and returns its token.
func (s *site) station(t testing.TB, name, letter string) string {
	t.Helper()
	return centraltest.EnrolStation(t, s.db, name, letter)
}

// issue makes n labels at a real desk with letter A.
func (s *site) issue(t testing.TB, n int) []string {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "desk.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	svc := app.NewService(db, s.keys, nil)
	svc.Now = s.clock.Now
	if err := svc.BindKeyRing(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.UpdateSettings(context.Background(), map[string]string{"station_id": "A", "station_name": "Desk 1", "serial_digits": "6"}, "test"); err != nil {
		t.Fatal(err)
	}
	_, codes, err := svc.Issue(context.Background(), app.IssueRequest{Count: n})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range codes {
		out = append(out, c.String())
	}
	return out
}

// upload sends codes as the desk with token.
func (s *site) upload(t testing.TB, token string, codes []string) {
	t.Helper()
	var in []map[string]any
	for _, c := range codes {
		in = append(in, map[string]any{"code": c, "expire_at": 0, "created_at": s.clock.Now().Unix() - 60})
	}
	var res struct{ Added int }
	if st := s.call(t, "POST", "/v1/batches", token, map[string]any{"codes": in}, &res); st != 200 || res.Added != len(codes) {
		t.Fatalf("upload: status %d, %+v", st, res)
	}
}

// redeem is a desk's redemption through the API; it returns the outcome.
func (s *site) redeem(t testing.TB, token, eventID, code string, offlineAt int64) protocol.Outcome {
	t.Helper()
	ev := protocol.Event{EventID: eventID, Kind: "redeem", Code: code, Operator: operators[token], At: s.clock.Now().Unix()}
	if offlineAt != 0 {
		ev.At, ev.Offline = offlineAt, true
		var res struct{ Results []protocol.Result }
		if st := s.call(t, "POST", "/v1/events", token, map[string]any{"events": []protocol.Event{ev}}, &res); st != 200 || len(res.Results) != 1 {
			t.Fatalf("offline redemption: status %d %+v", st, res)
		}
		return res.Results[0].Outcome
	}
	var r protocol.Result
	if st := s.call(t, "POST", "/v1/redeem", token, ev, &r); st != 200 {
		t.Fatalf("redeem: status %d %+v", st, r)
	}
	return r.Outcome
}

// operators are who scans at each desk of the tests (by token).
var operators = map[string]string{"qrd_test_Desk_1": "li.na", "qrd_test_Desk_2": "wang.lei", "qrd_test_Desk_3": "zhao.min"}

// call sends one API request as a desk and decodes the JSON answer.
func (s *site) call(t testing.TB, method, path, token string, body any, out any) int {
	t.Helper()
	var rd io.Reader
	if body != nil {
		data, _ := json.Marshal(body)
		rd = bytes.NewReader(data)
	}
	req, _ := http.NewRequest(method, s.url+path, rd)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set(protocol.RingHeader, s.ring)
	req.Header.Set(protocol.Header, strconv.Itoa(protocol.Version))
	resp, err := s.client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if out != nil {
		json.NewDecoder(resp.Body).Decode(out)
	}
	return resp.StatusCode
}

// client is an HTTP client for the site that does not follow redirects
// (the tests look at them) and trusts its test certificate.
func (s *site) client() *http.Client {
	return &http.Client{
		Transport:     &http.Transport{TLSClientConfig: insecureTLS()},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
