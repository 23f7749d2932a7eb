package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
	"qrdesk/webhook"
)

// TestWebhookCommands: add shows the secret once and never again (list,
// its JSON, the log), a URL's password is hidden, pause and resume and
// remove say what they did, and every mistake is named with exit 2.
func TestWebhookCommands(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		var db string
		h := centraltest.New(t, func(tb testing.TB) string { db = dbPath(tb); return db }, 0)
		clock := func() time.Time { return h.Now }
		cli := func(args ...string) (int, string, string) {
			var out, errOut bytes.Buffer
			code := run(context.Background(), append(args, "--db", db), &out, &errOut, clock)
			return code, out.String(), errOut.String()
		}
		code, out, errOut := cli("webhook", "add", "wms", "https://qrdesk:hunter22@wms.example.com/in")
		if code != 0 || !strings.Contains(out, "whsec_") || !strings.Contains(out, "xxxxx") || strings.Contains(out, "hunter22") {
			t.Fatalf("webhook add: %d %q %q", code, out, errOut)
		}
		secret := out[strings.Index(out, "whsec_"):]
		secret = strings.TrimSpace(secret)
		for _, args := range [][]string{{"webhook", "list"}, {"webhook", "list", "--json"}, {"webhook", "log", "wms"}} {
			code, out, errOut := cli(args...)
			if code != 0 || strings.Contains(out+errOut, secret) || strings.Contains(out+errOut, "hunter22") {
				t.Errorf("%v: %d, shows a secret or fails: %q %q", args, code, out, errOut)
			}
		}
		_, out, _ = cli("webhook", "list", "--json")
		var list []map[string]any
		if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 1 || list[0]["name"] != "wms" || list[0]["paused"] != false {
			t.Errorf("webhook list --json: %q %v", out, err)
		}
		for _, step := range []struct {
			args []string
			want string
		}{
			{[]string{"webhook", "pause", "wms"}, "paused"},
			{[]string{"webhook", "list"}, "paused"},
			{[]string{"webhook", "resume", "wms"}, "resumed"},
			{[]string{"webhook", "list"}, "active"},
			{[]string{"webhook", "remove", "wms"}, "removed"},
			{[]string{"webhook", "list"}, "no webhook endpoints"},
		} {
			if code, out, errOut := cli(step.args...); code != 0 || !strings.Contains(out, step.want) {
				t.Errorf("%v: %d %q %q, want %q", step.args, code, out, errOut, step.want)
			}
		}
		for _, bad := range []struct {
			args []string
			want string
		}{
			{[]string{"webhook", "add", "wms", "ftp://wms.example.com/"}, "http:// or https://"},
			{[]string{"webhook", "add", "w ms", "https://wms.example.com/"}, "use letters"},
			{[]string{"webhook", "pause", "nobody"}, "no webhook endpoint"},
			{[]string{"webhook", "remove", "nobody"}, "no webhook endpoint"},
			{[]string{"webhook", "log", "nobody"}, "no webhook endpoint"},
			{[]string{"webhook", "frob"}, "say one of"},
			{[]string{"export"}, "give --since"},
		} {
			if code, out, errOut := cli(bad.args...); code != 2 || !strings.Contains(errOut, bad.want) {
				t.Errorf("%v: %d %q %q, want exit 2 saying %q", bad.args, code, out, errOut, bad.want)
			}
		}
		cli("webhook", "add", "wms", "https://wms.example.com/in")
		if code, _, errOut := cli("webhook", "add", "wms", "https://other.example.com/in"); code != 2 || !strings.Contains(errOut, "exists") {
			t.Errorf("a second endpoint of the same name: %d %q", code, errOut)
		}
	})
}

// TestExportSince: export prints the decided events as JSON lines, the
// webhooks' JSON, and the next cursor; continuing from it prints only
// what was decided after (a cursor below what the server holds:
// TestWebhookOutboxSurvivesCompaction); an order's parcel used twice
// offline is one conflict naming the order.
func TestExportSince(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		var db string
		h, a, b, codes := centraltest.TwoDesks(t, func(tb testing.TB) string { db = dbPath(tb); return db }, 4)
		clock := func() time.Time { return h.Now }
		export := func(since string) ([]webhook.Event, string) {
			t.Helper()
			var out, errOut bytes.Buffer
			if code := run(context.Background(), []string{"export", "--since", since, "--db", db}, &out, &errOut, clock); code != 0 {
				t.Fatalf("export --since %s: %d %s", since, code, errOut.String())
			}
			var evs []webhook.Event
			for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
				if line == "" {
					continue
				}
				var ev webhook.Event
				if err := json.Unmarshal([]byte(line), &ev); err != nil {
					t.Fatalf("a line is not an event: %q", line)
				}
				evs = append(evs, ev)
			}
			next := strings.TrimSpace(errOut.String()[strings.LastIndex(errOut.String(), ":")+1:])
			return evs, next
		}
		_, order, err := a.Svc.Issue(context.Background(), app.IssueRequest{Count: 2, Ref: "Order 4711 · Müller"})
		if err != nil {
			t.Fatal(err)
		}
		a.Sync(t)
		a.Redeem(t, codes[0], "li")
		b.Redeem(t, order[0].String(), "wang")
		evs, next := export("0")
		if len(evs) != 2 || evs[0].Label != codes[0] || evs[0].Desk != "Desk A" || evs[0].Operator != "li" || evs[0].Type != "redeem" || evs[0].Site != "main" || evs[0].DecidedAt == "" {
			t.Fatalf("export --since 0: %+v", evs)
		}
		if evs[1].Label != order[0].String() || evs[1].OrderRef != "Order 4711 · Müller" || evs[1].Desk != "Desk B" {
			t.Fatalf("export --since 0, the order's parcel: %+v", evs[1])
		}
		a.Undo(t, codes[0], "wrong parcel")
		evs, next2 := export(next)
		if len(evs) != 1 || evs[0].Type != "undo" || evs[0].Label != codes[0] || evs[0].Reason != "wrong parcel" {
			t.Fatalf("export --since %s: %+v", next, evs)
		}
		if evs, _ := export(next2); len(evs) != 0 {
			t.Fatalf("export --since %s (the end): %+v", next2, evs)
		}
		// The order's other parcel handed over twice, offline at both desks:
		// one conflict naming the order and both uses.
		b.Sync(t)
		a.Offline(func() { a.Redeem(t, order[1].String(), "li") })
		b.Offline(func() { b.Redeem(t, order[1].String(), "wang") })
		a.Sync(t)
		b.Sync(t)
		evs, _ = export(next2)
		var conflicts []webhook.Event
		for _, ev := range evs {
			if ev.Type == "conflict" {
				conflicts = append(conflicts, ev)
			}
		}
		if len(conflicts) != 1 || conflicts[0].OrderRef != "Order 4711 · Müller" || conflicts[0].Conflict == nil ||
			conflicts[0].Conflict.First.Desk == conflicts[0].Conflict.Second.Desk {
			t.Fatalf("the double use of the order's parcel: %+v", evs)
		}
	})
}
