package server_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// TestReadyzFollowsTheDatabase: /readyz needs no token, says ready while
// the database answers and 503 with the reason once it does not (the
// SQLite file overwritten, as by a failed disk or a wrong restore; the
// PostgreSQL database refusing connections, as during maintenance). The
// driver's error, which names the database, its user, host and port, is
// logged, not answered.
func TestReadyzFollowsTheDatabase(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		var path string
		h := centraltest.New(t, func(t testing.TB) string { path = dbPath(t); return path }, 0)
		var logged lockedBuffer
		h.API.Log = slog.New(slog.NewTextHandler(&logged, nil))
		status, body := getReady(t, h.URL)
		if status != 200 || body["status"] != "ready" {
			t.Fatalf("healthy database: %d %v", status, body)
		}
		breakDatabase(t, path)
		status, body = getReady(t, h.URL)
		if status != http.StatusServiceUnavailable || body["status"] != "not ready" || body["error"] != "the database does not answer" {
			t.Fatalf("database gone: %d %v, want 503 saying only that the database does not answer", status, body)
		}
		if log := logged.String(); !strings.Contains(log, "not ready: the database does not answer") || !strings.Contains(log, "error=") {
			t.Fatalf("the driver's error is not in the log:\n%s", log)
		}
	})
}

// lockedBuffer is a log's output, written by the server's goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func getReady(t *testing.T, base string) (int, map[string]string) {
	t.Helper()
	resp, err := http.Get(base + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]string
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatalf("/readyz answer: %v", err)
	}
	return resp.StatusCode, body
}

// breakDatabase makes the database at path stop answering.
func breakDatabase(t *testing.T, path string) {
	t.Helper()
	if !strings.HasPrefix(path, "postgres://") {
		junk := []byte(strings.Repeat("not a database ", 4096))
		for _, p := range []string{path, path + "-wal", path + "-shm"} {
			if err := os.WriteFile(p, junk, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	u, err := url.Parse(path)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimPrefix(u.Path, "/")
	u.Path = "/postgres"
	admin, err := sql.Open("pgx", u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	ctx := context.Background()
	// The test cluster is thrown away after the run: no need to allow
	// connections again.
	if _, err := admin.ExecContext(ctx, `ALTER DATABASE `+name+` ALLOW_CONNECTIONS false`); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.ExecContext(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1`, name); err != nil {
		t.Fatal(err)
	}
}
