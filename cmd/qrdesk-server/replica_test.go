package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"qrdesk/app"
	"qrdesk/deskclient"
	"qrdesk/internal/testpg"
)

// TestServeWithReadReplica: qrdesk-server serve --db (a PostgreSQL
// primary) with QRDESK_SERVER_REPLICA_URL (or --replica-url) naming a
// real streaming standby reads a desk's feed there and reports the
// replica in /readyz and /metrics; --replica-url is refused for a SQLite
// database and for a database that is not a copy of --db's.
func TestServeWithReadReplica(t *testing.T) {
	pair := testpg.StartReadReplica(t)
	primary, standby := pair.NodeURL(pair.Primary()), pair.NodeURL(pair.Standby())
	ctx := context.Background()
	run1 := func(args ...string) (int, string) {
		var out bytes.Buffer
		code := run(ctx, args, &out, &out, now)
		return code, out.String()
	}
	other, _ := pair.NewDatabase(t)
	lite := filepath.Join(t.TempDir(), "server.db")
	for _, tc := range []struct {
		args []string
		code int
		say  string
	}{
		{[]string{"serve", "--db", lite, "--replica-url", standby}, 2, "needs a PostgreSQL --db"},
		{[]string{"serve", "--db", primary, "--replica-url", filepath.Join(t.TempDir(), "replica.db")}, 2, "postgres:// URL"},
		{[]string{"serve", "--db", primary, "--replica-url", standby, "--replica-max-lag", "0s"}, 2, "above zero"},
		{[]string{"serve", "--db", primary, "--replica-url", strings.Replace(standby, "127.0.0.1:", "127.0.0.1:1,127.0.0.1:", 1)}, 2, "one standby"},
		{[]string{"serve", "--db", primary, "--replica-url", other}, 3, "not a copy of the primary's database"},
	} {
		if code, out := run1(tc.args...); code != tc.code || !strings.Contains(out, tc.say) {
			t.Errorf("%q: exit %d %q, want %d saying %q", tc.args, code, out, tc.code, tc.say)
		}
	}

	if _, err := os.Stat(lite); err == nil {
		t.Error("serve with --replica-url made a SQLite database before refusing it")
	}
	code, out := run1("station", "add", "Desk 1", "--db", primary)
	token := regexp.MustCompile(`qrd_[A-Za-z0-9_-]+`).FindString(out)
	if code != 0 || token == "" {
		t.Fatalf("station add: %d %s", code, out)
	}
	t.Setenv("QRDESK_SERVER_REPLICA_URL", standby)
	addr := freeAddr(t)
	sctx, stop := context.WithCancel(ctx)
	done := make(chan int)
	var logs bytes.Buffer
	go func() {
		done <- run(sctx, []string{"serve", "--db", primary, "--listen", addr}, &bytes.Buffer{}, &logs, now)
	}()
	stopped := false
	defer func() {
		if !stopped {
			stop()
			<-done
		}
	}()
	if code, body := get(t, "http://"+addr+"/readyz"); code != 200 || !strings.Contains(body, `"replica":{"up":true`) || !strings.Contains(body, `"serving":true`) {
		t.Fatalf("/readyz: %d %s", code, body)
	}
	keys, err := app.LoadKeys(filepath.Join(t.TempDir(), "qrdesk.key"), true)
	if err != nil {
		t.Fatal(err)
	}
	c := deskclient.New("http://"+addr, token)
	if _, err := c.Enrol(ctx, keys.RingID(), nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Changes(ctx, keys.RingID(), 0, 0); err != nil {
		t.Fatal(err)
	}
	code, body := get(t, "http://"+addr+"/metrics")
	for _, want := range []string{"qrdesk_replica_up 1", "qrdesk_replica_serving 1", "qrdesk_replica_lag_seconds 0", "qrdesk_replica_lag_bytes ", "qrdesk_replica_replay_paused 0"} {
		if code != 200 || !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q: %d\n%s", want, code, grepLines(body, "qrdesk_replica|qrdesk_feed_reads"))
		}
	}
	if m := regexp.MustCompile(`qrdesk_feed_reads_total\{reason="serving",served_by="replica"\} (\d+)`).FindStringSubmatch(body); m == nil || m[1] == "0" {
		t.Errorf("no feed read served by the replica:\n%s", grepLines(body, "qrdesk_feed_reads"))
	}
	stop() // the log is read once the server is done writing it
	stopped = true
	if code := <-done; code != 0 {
		t.Fatalf("serve exited %d: %s", code, logs.String())
	}
	var line struct{ Msg string }
	for _, l := range strings.Split(logs.String(), "\n") {
		if json.Unmarshal([]byte(l), &line) == nil && line.Msg == "read replica" {
			if !strings.Contains(l, `"up":true`) {
				t.Errorf("start-up log: %s", l)
			}
			return
		}
	}
	t.Errorf("no start-up line about the read replica:\n%s", logs.String())
}

// grepLines returns the lines of s matching pattern.
func grepLines(s, pattern string) string {
	re := regexp.MustCompile(pattern)
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if re.MatchString(l) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
