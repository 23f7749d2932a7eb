package main

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// TestExportRefusesACursorPastTheFeed: a script pulls with 'export
// --since' and keeps the next cursor; the server is then restored from a
// backup taken before that cursor, so its feed ends below it. The export
// answered "0 events; next cursor: <the script's cursor>" every time, and
// the script missed every event decided after the restore until the feed
// grew past its cursor again. A cursor past the end of the feed is
// refused, saying where the feed ends and to continue from there (the
// events it has come again under their ids).
func TestExportRefusesACursorPastTheFeed(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		var db string
		h, a, _, codes := centraltest.TwoDesks(t, func(tb testing.TB) string { db = dbPath(tb); return db }, 2)
		clock := func() time.Time { return h.Now }
		export := func(since int64) (int, string, string) {
			var out, errOut bytes.Buffer
			code := run(context.Background(), []string{"export", "--since", strconv.FormatInt(since, 10), "--db", db}, &out, &errOut, clock)
			return code, out.String(), errOut.String()
		}
		a.Redeem(t, codes[0], "li")
		code, _, errOut := export(0)
		if code != 0 {
			t.Fatalf("export --since 0: %d %s", code, errOut)
		}
		head, err := strconv.ParseInt(strings.TrimSpace(errOut[strings.LastIndex(errOut, ":")+1:]), 10, 64)
		if err != nil {
			t.Fatalf("export --since 0 said %q", errOut)
		}
		if code, _, errOut := export(head); code != 0 || !strings.Contains(errOut, "0 events; next cursor: "+strconv.FormatInt(head, 10)) {
			t.Fatalf("export at the end of the feed: %d %q, want 0 events", code, errOut)
		}
		code, out, errOut := export(head + 5)
		want := "ends at cursor " + strconv.FormatInt(head, 10)
		if code != 2 || out != "" || !strings.Contains(errOut, want) || !strings.Contains(errOut, "--since "+strconv.FormatInt(head, 10)) {
			t.Fatalf("export --since %d past the feed's end %d: exit %d, %q, want exit 2 saying %q and where to continue", head+5, head, code, errOut, want)
		}
	})
}
