package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"qrdesk/central"
	"qrdesk/internal/testclock"
	"qrdesk/serverdb"
)

// now is the tests' clock: the suite's day ($QRDESK_TEST_DATE), running on.
var now = testclock.Running(testclock.Base())

func TestServeAndShutDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	db := filepath.Join(t.TempDir(), "server.db")
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"station", "add", "Desk 1", "--db", db}, &out, &errOut, now); code != 0 || !strings.Contains(out.String(), "qrd_") {
		t.Fatalf("station add: %d %s %s", code, out.String(), errOut.String())
	}
	if code := run(context.Background(), []string{"station", "add", "Desk 1", "--db", db}, &out, &errOut, now); code == 0 {
		t.Fatal("the same station name was added twice")
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	var logs bytes.Buffer
	go func() { done <- run(ctx, []string{"--db", db, "--listen", addr}, &out, &logs, now) }()
	var resp *http.Response
	for i := 0; i < 100; i++ {
		if resp, err = http.Get("http://" + addr + "/v1/health"); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("health: %v %v", resp, err)
	}
	var health struct{ Time int64 }
	json.NewDecoder(resp.Body).Decode(&health)
	resp.Body.Close()
	if got := time.Unix(health.Time, 0).Format("2006-01-02"); got != testclock.Date(0) {
		t.Fatalf("the server's clock says %s, want the clock it was given (%s)", got, testclock.Date(0))
	}
	cancel() // as SIGTERM does
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("graceful shutdown exited %d: %s", code, logs.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the server did not shut down")
	}
	if !strings.Contains(logs.String(), `"path":"/v1/health"`) || strings.Contains(logs.String(), "qrd_") {
		t.Fatalf("access log missing, or a token in it:\n%s", logs.String())
	}
}

// TestStationCommands: names and letters are checked, each mistake is a
// usage error (exit 2) that says what to do, and a letter belongs to one
// station.
func TestStationCommands(t *testing.T) {
	db := filepath.Join(t.TempDir(), "server.db")
	run1 := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := run(context.Background(), append(args, "--db", db), &out, &errOut, now)
		return code, out.String(), errOut.String()
	}
	for _, tc := range []struct {
		args []string
		code int
		say  string
	}{
		{[]string{"station", "add", "Desk 1", "--letter", "b"}, 0, "letter B"},
		{[]string{"station", "add", ""}, 2, "needs a name"},
		{[]string{"station", "add", "Desk\n2"}, 2, "control character"},
		{[]string{"station", "add", strings.Repeat("张", 41)}, 2, "at most 40"},
		{[]string{"station", "add", "Desk 2", "--letter", "7"}, 2, "one letter A–Z"},
		{[]string{"station", "add", "Desk 2", "--letter", "B"}, 3, `belongs to station "Desk 1"`},
		{[]string{"station", "add", "Desk 1", "--letter", "C"}, 3, "exists"},
		{[]string{"station", "frobnicate"}, 2, "station add NAME --letter L"},
		{[]string{"station", "letter", "Desk 1", "C"}, 2, "cannot change"},
		{[]string{"station", "renew", "Nobody"}, 3, "no such station"},
		{[]string{"station", "renew", "Desk 1"}, 0, "qrd_"},
		{[]string{"ring", "show"}, 0, "-"},
		{[]string{"ring", "reset"}, 0, "cleared"},
		{[]string{"report", "--date", "tomorrow"}, 2, "YYYY-MM-DD"},
	} {
		code, out, errOut := run1(tc.args...)
		if code != tc.code || !strings.Contains(out+errOut, tc.say) {
			t.Errorf("%q: exit %d %q%q, want %d mentioning %q", tc.args, code, out, errOut, tc.code, tc.say)
		}
	}
	if _, out, _ := run1("station", "list"); !strings.Contains(out, "Desk 1\tB\tmain\tactive") || strings.Contains(out, "Desk 2") {
		t.Fatalf("station list:\n%s", out)
	}
}

// conflictsAsked is a report store that records the range of a report.
type conflictsAsked struct{ from, to int64 }

func (c *conflictsAsked) ConflictRecords(_ context.Context, from, to int64) ([]central.ConflictRecord, error) {
	c.from, c.to = from, to
	return nil, nil
}

func (c *conflictsAsked) Sites(context.Context) ([]central.Site, error) { return nil, nil }

func (c *conflictsAsked) FlaggedEvents(_ context.Context, from, to int64) ([]serverdb.FlaggedEvent, error) {
	return nil, nil
}

// TestReportDay: the report's day is the local day of the server's clock
// (or --date), from midnight to midnight, 23 or 25 hours when the clocks
// change.
func TestReportDay(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	at := func(s string) time.Time {
		t.Helper()
		v, err := time.ParseInLocation("2006-01-02 15:04:05", s, berlin)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tc := range []struct {
		name, now, date string
		want            string // the day reported
		hours           int
	}{
		{"LastSecond", "2026-11-29 23:59:59", "", "2026-11-29", 24},
		{"Midnight", "2026-11-30 00:00:00", "", "2026-11-30", 24},
		{"ClocksGoForward", "2027-03-28 12:00:00", "", "2027-03-28", 23},
		{"ClocksGoBack", "2027-10-31 12:00:00", "", "2027-10-31", 25},
		{"LeapDay", "2028-03-01 09:00:00", "2028-02-29", "2028-02-29", 24},
		{"DateOnDSTDay", "2026-11-29 10:00:00", "2027-03-28", "2027-03-28", 23},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := &conflictsAsked{}
			var out bytes.Buffer
			clock := testclock.New(at(tc.now))
			if err := report(context.Background(), st, clock.Now, tc.date, "", &out); err != nil {
				t.Fatal(err)
			}
			var got struct{ Date string }
			json.Unmarshal(out.Bytes(), &got)
			from := time.Unix(st.from, 0).In(berlin)
			if got.Date != tc.want || from.Format("2006-01-02 15:04") != tc.want+" 00:00" {
				t.Fatalf("report of %s from %v, want %s from local midnight", got.Date, from, tc.want)
			}
			if h := (st.to - st.from) / 3600; h != int64(tc.hours) {
				t.Fatalf("the day is %d hours long, want %d", h, tc.hours)
			}
		})
	}
	if err := report(context.Background(), &conflictsAsked{}, now, "2027-02-29", "", &bytes.Buffer{}); err == nil {
		t.Fatal("--date 2027-02-29 (not a leap year) was accepted")
	}
	// The command line, on a real database, uses the clock it is given.
	var out, errOut bytes.Buffer
	db := filepath.Join(t.TempDir(), "s.db")
	run(context.Background(), []string{"station", "add", "Desk 1", "--db", db}, &bytes.Buffer{}, &errOut, now)
	if code := run(context.Background(), []string{"report", "--db", db}, &out, &errOut, now); code != 0 {
		t.Fatalf("report: %d %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), `"date": "`+testclock.Date(0)+`"`) {
		t.Fatalf("report %s, want the date %s", out.String(), testclock.Date(0))
	}
}

// TestMistypedDatabase: reading commands refuse a --db that does not exist
// (and create nothing) instead of reporting from a new, empty database.
func TestMistypedDatabase(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nowhere", "server.db")
	for _, args := range [][]string{{"report"}, {"compact"}, {"ring", "show"}, {"station", "list"}, {"station", "revoke", "Desk 1"}} {
		var out, errOut bytes.Buffer
		if code := run(context.Background(), append(args, "--db", missing), &out, &errOut, now); code != 2 || !strings.Contains(errOut.String(), "no server database at") {
			t.Fatalf("%v on a missing database: exit %d %q", args, code, errOut.String())
		}
	}
	if _, err := os.Stat(filepath.Dir(missing)); err == nil {
		t.Fatal("a folder was created for the mistyped database")
	}
}

// TestFlagsBeforeTheCommand: '--db F station add NAME' runs the command
// (it once started the server instead and ignored the names), and serve
// refuses names it would ignore.
func TestFlagsBeforeTheCommand(t *testing.T) {
	db := filepath.Join(t.TempDir(), "server.db")
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"--db", db, "station", "add", "Desk 1"}, &out, &errOut, now); code != 0 || !strings.Contains(out.String(), "qrd_") {
		t.Fatalf("flags first: exit %d, %q %q", code, out.String(), errOut.String())
	}
	out.Reset()
	if code := run(context.Background(), []string{"--db", db, "station", "list"}, &out, &errOut, now); code != 0 || !strings.Contains(out.String(), "Desk 1") {
		t.Fatalf("station list: exit %d, %q", code, out.String())
	}
	errOut.Reset()
	if code := run(context.Background(), []string{"serve", "--db", db, "extra"}, &out, &errOut, now); code != 2 || !strings.Contains(errOut.String(), "serve takes only flags") {
		t.Fatalf("serve with a name: exit %d, %q", code, errOut.String())
	}
}

// TestEachCommandHasItsOwnFlags: a command refuses another's flag with a
// hint (it once took every command's flags and ignored the others'), and
// its --help shows its forms and flags alone.
func TestEachCommandHasItsOwnFlags(t *testing.T) {
	db := filepath.Join(t.TempDir(), "server.db")
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"station", "add", "Desk 1", "--sites", "North", "--db", db}, &out, &errOut, now); code != 2 ||
		!strings.Contains(errOut.String(), "qrdesk-server station: flag provided but not defined: -sites ('qrdesk-server station --help' lists its flags)") {
		t.Fatalf("station add --sites: exit %d, %q", code, errOut.String())
	}
	if _, err := os.Stat(db); err == nil {
		t.Fatal("a refused command line created the database")
	}
	for _, name := range commandNames {
		if name == "version" {
			continue // 'version --help' is the version
		}
		out.Reset()
		if code := run(context.Background(), []string{name, "--help"}, &out, &errOut, now); code != 0 || !strings.HasPrefix(out.String(), "qrdesk-server "+name+": ") {
			t.Errorf("%s --help: exit %d, %q", name, code, out.String())
		}
		if !strings.Contains(out.String(), "-db string") {
			t.Errorf("%s --help does not show --db:\n%s", name, out.String())
		}
	}
	out.Reset()
	if run(context.Background(), []string{"report", "--help"}, &out, &errOut, now); strings.Contains(out.String(), "-letter") || !strings.Contains(out.String(), "-date") {
		t.Fatalf("report --help shows another command's flags, or not its own:\n%s", out.String())
	}
	out.Reset()
	if code := run(context.Background(), []string{"--help"}, &out, &errOut, now); code != 0 || !strings.Contains(out.String(), "  operators  ") {
		t.Fatalf("--help: exit %d, %q", code, out.String())
	}
}
