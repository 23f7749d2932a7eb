package multidesk_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/deskclient"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// issueWithRef issues n labels at d with ref and returns them and the
// batch's number at d.
func issueWithRef(t *testing.T, d *centraltest.Desk, n int, ref string) ([]string, int64) {
	t.Helper()
	b, codes, err := d.Svc.Issue(context.Background(), app.IssueRequest{Count: n, Ref: ref})
	if err != nil {
		t.Fatalf("issue with ref %q: %v", ref, err)
	}
	out := make([]string, len(codes))
	for i, c := range codes {
		out[i] = c.String()
	}
	return out, b.ID
}

// shownRef is the ref a desk shows for code: its Scan verdict's record
// (Service.Check, as the Scan screen and the Codes detail read it).
func shownRef(t *testing.T, d *centraltest.Desk, code string) string {
	t.Helper()
	v, err := d.Svc.Check(context.Background(), code)
	if err != nil {
		t.Fatalf("check %s: %v", code, err)
	}
	if v.Record == nil {
		t.Fatalf("check %s: %+v, want the desk to hold the label", code, v)
	}
	return v.Record.Ref
}

// TestRefReachesOtherDesks: a batch issued with a ref at desk A shows
// the ref at desk B after both synced, in B's verdict and B's search by
// ref (the Codes screen's), as at A; so does the label that replaces one
// of them, and a desk that joins after the feed was compacted (from the
// snapshot). The server keeps the ref and A's batch number per label.
func TestRefReachesOtherDesks(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, _ := centraltest.TwoDesks(t, dbPath, 0)
		const ref = "ROUTE-7 张三"
		codes, batch := issueWithRef(t, a, 3, ref)
		a.Sync(t)
		b.Sync(t)
		for _, c := range codes {
			if got := shownRef(t, b, c); got != ref {
				t.Fatalf("desk B shows ref %q for %s, want %q (desk A's)", got, c, ref)
			}
		}
		found, err := b.Svc.Search(context.Background(), app.SearchQuery{Text: ref})
		if err != nil || len(found) != 3 {
			t.Fatalf("desk B's search for %q: %d labels, %v; want the 3 of desk A's batch", ref, len(found), err)
		}
		if l := h.Server(t).Label(codes[1]); l.Ref != ref || l.Batch != batch {
			t.Fatalf("the server holds ref %q, batch %d; want %q, batch %d", l.Ref, l.Batch, ref, batch)
		}

		// A replacement carries its old label's ref: it reaches the
		// server with the replace event first (no ref), its batch with
		// the ref at the next sync, which completes the label's ref.
		newLabel := a.Replace(t, codes[0], "li")
		a.Sync(t)
		a.Sync(t)
		b.Sync(t)
		if got := shownRef(t, b, newLabel); got != ref {
			t.Fatalf("desk B shows ref %q for the replacement %s, want %q", got, newLabel, ref)
		}

		// A desk that starts from the server's snapshot.
		a.Sync(t)
		b.Sync(t)
		h.Compact(t, h.Now.Add(-7*24*time.Hour).Unix())
		late := h.Desk(t, "Desk L", "L", h.Station(t, "Desk L", "L"))
		late.Sync(t)
		for _, c := range []string{codes[2], newLabel} {
			if got := shownRef(t, late, c); got != ref {
				t.Fatalf("a desk that joined after compaction shows ref %q for %s, want %q", got, c, ref)
			}
		}
	})
}

// TestRefOnlyToANewerServer: a desk sends a batch's ref only to a server
// that announces it reads it (protocol 4): a protocol-3 server gets the
// batch without it and takes it; once it is upgraded, the next batch's
// ref goes with it.
func TestRefOnlyToANewerServer(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 0)
		old := &olderServer{next: h.API.Handler(), on: true, protocol: 3, path: "/v1/batches", fields: []string{"ref", "batch"}}
		srv := httptest.NewServer(old)
		t.Cleanup(srv.Close)
		a := h.Desk(t, "Desk A", "A", "")
		a.Svc.Remote = deskclient.New(srv.URL, h.Station(t, "Desk A", "A"))

		before, _ := issueWithRef(t, a, 2, "ROUTE-7")
		st, err := a.Svc.Sync(context.Background())
		if err != nil || old.refused != 0 {
			t.Fatalf("sync with a protocol-3 server: %+v %v (%d uploads refused), want the batch taken without its ref", st, err, old.refused)
		}
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM codes WHERE code = ? AND ref = ''`, before[0]); n != 1 {
			t.Fatalf("the old server holds %d labels %s without a ref, want 1", n, before[0])
		}

		old.on = false // the server is upgraded
		after, _ := issueWithRef(t, a, 2, "ROUTE-8")
		a.Sync(t)
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM codes WHERE code = ? AND ref = 'ROUTE-8'`, after[0]); n != 1 {
			t.Fatalf("the upgraded server holds %d labels %s with ref ROUTE-8, want 1", n, after[0])
		}
		if got := shownRef(t, a, before[0]); got != "ROUTE-7" {
			t.Fatalf("desk A shows ref %q for its own label, want ROUTE-7", got)
		}
	})
}

// TestRefCheckedAtTheServer: an upload whose ref a desk would not have
// taken (a control character, over 200 characters) is refused with what
// was wrong; 200 characters of Chinese are taken; an upload without ref or
// batch (a desk before protocol 4) is taken as before.
func TestRefCheckedAtTheServer(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 4)
		tok := h.Station(t, "Desk A", "A")
		upload := func(code, ref string, batch int64) (int, string) {
			var res struct{ Error string }
			c := map[string]any{"code": code, "expire_at": 0, "created_at": h.Now.Unix() - 60}
			if ref != "" {
				c["ref"] = ref
			}
			if batch != 0 {
				c["batch"] = batch
			}
			status := h.Call(t, "POST", "/v1/batches", tok, h.Ring, map[string]any{"codes": []any{c}}, &res)
			return status, res.Error
		}
		for _, tc := range []struct {
			name, ref string
			batch     int64
			want      string
		}{
			{"ControlCharacter", "ROUTE\a7", 1, "ref contains a control character (U+0007): use plain text on one line"},
			{"LineBreak", "ROUTE\n7", 1, "ref contains a control character (U+000A)"},
			{"TooLong", strings.Repeat("R", 201), 1, "ref is 201 characters long: at most 200"},
			{"NegativeBatch", "ROUTE-7", -1, "batch must be the desk's batch number"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				status, msg := upload(h.Codes[0], tc.ref, tc.batch)
				if status != http.StatusBadRequest || !strings.Contains(msg, tc.want) || !strings.Contains(msg, "codes[0] "+h.Codes[0]) {
					t.Fatalf("got %d %q, want 400 naming codes[0] %s and %q", status, msg, h.Codes[0], tc.want)
				}
			})
		}
		if status, msg := upload(h.Codes[1], strings.Repeat("张", 200), 3); status != http.StatusOK {
			t.Fatalf("200 Chinese characters: %d %q, want taken", status, msg)
		}
		if status, msg := upload(h.Codes[2], "", 0); status != http.StatusOK {
			t.Fatalf("an upload without ref or batch: %d %q, want taken", status, msg)
		}
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM codes WHERE code = ? AND batch = 3 AND ref <> ''`, h.Codes[1]); n != 1 {
			t.Fatalf("the server holds %d labels %s with the ref and batch 3, want 1", n, h.Codes[1])
		}
	})
}
