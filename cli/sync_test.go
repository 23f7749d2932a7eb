package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// fakeServer answers every request 401 and remembers the bearer tokens it
// was sent: enough to see which token 'qrdesk sync' uses.
type fakeServer struct {
	*httptest.Server
	mu     sync.Mutex
	tokens []string
}

func newFakeServer(t *testing.T) *fakeServer {
	f := &fakeServer{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.tokens = append(f.tokens, strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
		f.mu.Unlock()
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error":"unknown token"}`))
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeServer) sent() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.tokens...)
}

func savedSyncConfig(t *testing.T, s *station) (syncConfig, os.FileMode) {
	t.Helper()
	path := filepath.Join(s.dir, "sync.json")
	info, err := os.Stat(path)
	if err != nil {
		t.Fatalf("sync.json: %v", err)
	}
	var sc syncConfig
	if err := json.Unmarshal(readFile(t, path), &sc); err != nil {
		t.Fatalf("sync.json: %v", err)
	}
	return sc, info.Mode().Perm()
}

// TestSyncConfigMode: sync.json holds the token, so it ends up 0600 even
// when a looser file was there before.
func TestSyncConfigMode(t *testing.T) {
	srv := newFakeServer(t)
	s := newStation(t)
	path := filepath.Join(s.dir, "sync.json")
	writeFile(t, path, []byte(`{"server":"http://old.example:8427","token":"old"}`))
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	s.run(t, "sync", "--server", srv.URL, "--token", "qrd_new")
	sc, mode := savedSyncConfig(t, s)
	if mode != 0o600 {
		t.Errorf("sync.json has mode %04o, want 0600", mode)
	}
	if sc.Server != srv.URL || sc.Token != "qrd_new" {
		t.Errorf("sync.json holds %+v, want server %s and the new token", sc, srv.URL)
	}
	if left, _ := filepath.Glob(filepath.Join(s.dir, "*sync*")); len(left) != 1 {
		t.Errorf("files left beside sync.json: %v", left)
	}
}
