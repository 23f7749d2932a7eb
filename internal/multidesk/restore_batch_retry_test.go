package multidesk_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"qrdesk/internal/testpg"
)

// TestBatchRetryAfterLostAnswerFoundByRestore: desk A uploads a batch; the
// server stores it, and the answer is lost (the desk gives up: the
// network, a timeout). A's next sync uploads the batch again: every label
// is held already, so nothing is written, and the desk marks the batch
// uploaded (and that sync too is cut short, before the feed). The server is then restored to a backup from before the
// first upload: the batch is gone. A's next sync must find the lost
// history and send the batch again, so the retry's answer carries a write
// number of its own (a write the server holds the batch by) as a
// duplicate event's carries its first one; with none, the desk named no
// write the restore lost, and its labels never reached the server again.
// The property test's seed 788587884 found it (I3: the server does not
// know the labels; I7: the desk counts two labels issued more than the
// dashboard).
func TestBatchRetryAfterLostAnswerFoundByRestore(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		g := newRestorable(t, dbPath)
		a := g.deskAt(t, "Desk A", "A")
		a.Issue(t, 1)
		a.Sync(t)
		backup := g.backup()
		codes := a.Issue(t, 2)
		// The batch reaches the server; its answer does not reach the desk.
		cut, cancel := context.WithCancel(ctx)
		var lost atomic.Bool
		g.before = func(r *http.Request) {
			if r.URL.Path != "/v1/batches" || lost.Swap(true) {
				return
			}
			body, _ := io.ReadAll(r.Body)
			first := r.Clone(context.Background())
			first.Body = io.NopCloser(bytes.NewReader(body))
			rec := httptest.NewRecorder()
			(*g.handler.Load()).ServeHTTP(rec, first)
			if rec.Code != http.StatusOK {
				t.Errorf("the batch's first upload: %d %s", rec.Code, rec.Body)
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			cancel()
		}
		if _, err := a.Svc.Sync(cut); err == nil || !lost.Load() {
			t.Fatalf("desk A's sync was not cut short after its batch upload (error %v): the test's premise changed", err)
		}
		g.before = nil
		if n := g.Server(t).CountLabels(""); n != 3 {
			t.Fatalf("the server holds %d labels after the lost answer, want 3: the test's premise changed", n)
		}
		// The batch again, a retry; this sync too is cut short, before it
		// reads the feed (so the desk's feed position does not show the
		// restore either).
		cut, cancel = context.WithCancel(ctx)
		g.before = func(r *http.Request) {
			if r.URL.Path == "/v1/changes" {
				cancel()
			}
		}
		if _, err := a.Svc.Sync(cut); err == nil {
			t.Fatal("desk A's second sync was not cut short before the feed: the test's premise changed")
		}
		g.before = nil
		var uploaded int
		if err := a.DB.SQL().QueryRowContext(ctx, `SELECT count(*) FROM batches WHERE uploaded = 1 AND label_date <> 'remote'`).Scan(&uploaded); err != nil {
			t.Fatal(err)
		}
		if uploaded != 2 {
			t.Fatalf("desk A holds %d of its batches uploaded after the retry, want 2: the test's premise changed", uploaded)
		}
		g.restore(backup)
		if n := g.Server(t).CountLabels(""); n != 1 {
			t.Fatalf("the server holds %d labels after the restore, want 1: the test's premise changed", n)
		}
		a.Sync(t)
		a.Sync(t)
		for _, code := range codes {
			if got := g.Server(t).Status(code); got != "unused" {
				t.Errorf("the server holds desk A's label %s as %q after A synced, want unused: the restore lost its batch and A never sent it again", code, got)
			}
		}
	})
}
