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

// TestSyncConfigMadePrivate: a sync.json others may read (an older
// qrdesk, a copy) is made 0600 by the next command that reads it.
func TestSyncConfigMadePrivate(t *testing.T) {
	srv := newFakeServer(t)
	s := newStation(t)
	path := filepath.Join(s.dir, "sync.json")
	writeFile(t, path, []byte(`{"server":"`+srv.URL+`","token":"qrd_x"}`))
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := s.run(t, "conflicts"); code != 0 {
		t.Fatalf("conflicts: exit %d %s", code, errOut)
	}
	if _, mode := savedSyncConfig(t, s); mode != 0o600 {
		t.Errorf("sync.json has mode %04o after a command read it, want 0600", mode)
	}
}

// TestSyncTokenSources: the token can come from a file, stdin or
// $QRDESK_TOKEN, none of which shows in the process list; --token T still
// works but warns.
func TestSyncTokenSources(t *testing.T) {
	tokenFile := filepath.Join(t.TempDir(), "token")
	writeFile(t, tokenFile, []byte("  qrd_from_file \n"))
	for _, tc := range []struct {
		name  string
		args  []string
		stdin string
		vars  map[string]string
		want  string
		warns bool
	}{
		{"TokenFile", []string{"--token-file", tokenFile}, "", nil, "qrd_from_file", false},
		{"Stdin", []string{"--token", "-"}, "qrd_from_stdin\n", nil, "qrd_from_stdin", false},
		{"Env", nil, "", map[string]string{"QRDESK_TOKEN": " qrd_from_env\n"}, "qrd_from_env", false},
		{"FlagOverEnv", []string{"--token-file", tokenFile}, "", map[string]string{"QRDESK_TOKEN": "qrd_from_env"}, "qrd_from_file", false},
		{"Argument", []string{"--token", "qrd_on_the_command_line"}, "", nil, "qrd_on_the_command_line", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newFakeServer(t)
			s := newStation(t)
			s.vars = tc.vars
			_, _, errOut := s.runStdin(t, tc.stdin, append([]string{"sync", "--server", srv.URL}, tc.args...)...)
			sc, mode := savedSyncConfig(t, s)
			if sc.Token != tc.want || mode != 0o600 {
				t.Errorf("saved token %q mode %04o, want %q 0600", sc.Token, mode, tc.want)
			}
			if sent := srv.sent(); len(sent) == 0 || sent[0] != tc.want {
				t.Errorf("the server was sent tokens %q, want %q", sent, tc.want)
			}
			warned := strings.Contains(errOut, "visible to other users") && strings.Contains(errOut, "--token-file")
			if warned != tc.warns {
				t.Errorf("warning %v, want %v; stderr %q", warned, tc.warns, errOut)
			}
			if tc.warns && strings.Contains(errOut, tc.want) {
				t.Errorf("the warning repeats the token: %q", errOut)
			}
		})
	}
}

// TestSyncTokenRefused: a token that cannot be read is refused before
// anything is saved, with what to do.
func TestSyncTokenRefused(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	writeFile(t, empty, []byte(" \n"))
	tokenFile := filepath.Join(dir, "token")
	writeFile(t, tokenFile, []byte("qrd_x"))
	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		errorHas string
	}{
		{"NoToken", []string{"--server", "http://server:8427"}, ExitUsage, "--token-file"},
		{"TwoSources", []string{"--server", "http://server:8427", "--token", "qrd_x", "--token-file", tokenFile}, ExitUsage, "only one"},
		{"TokenWithoutServer", []string{"--token-file", tokenFile}, ExitUsage, "--server"},
		{"MissingFile", []string{"--server", "http://server:8427", "--token-file", filepath.Join(dir, "nope")}, ExitUsage, "cannot read the token file"},
		{"EmptyFile", []string{"--server", "http://server:8427", "--token-file", empty}, ExitUsage, "is empty"},
		{"EmptyStdin", []string{"--server", "http://server:8427", "--token", "-"}, ExitUsage, "no token on standard input"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStation(t)
			code, _, errOut := s.run(t, append([]string{"sync"}, tc.args...)...)
			if code != tc.code || !strings.Contains(errOut, tc.errorHas) {
				t.Fatalf("exit %d %q, want %d and %q", code, errOut, tc.code, tc.errorHas)
			}
			if _, err := os.Stat(filepath.Join(s.dir, "sync.json")); err == nil {
				t.Errorf("sync.json was saved")
			}
		})
	}
}

// TestSyncWarnsOfPlainHTTP: a desk whose server is plain http:// on
// another machine says at every sync that its token travels in clear;
// https:// or a server on this machine says nothing. (0.0.0.0 is another
// address than loopback's, and refuses at once here: the sync fails
// quickly, after the warning.)
func TestSyncWarnsOfPlainHTTP(t *testing.T) {
	local := newFakeServer(t)
	tokenFile := filepath.Join(t.TempDir(), "token")
	writeFile(t, tokenFile, []byte("qrd_token\n"))
	for _, tc := range []struct {
		server string
		warns  bool
	}{
		{local.URL, false},
		{"http://0.0.0.0:1", true},
		{"https://0.0.0.0:1", false},
	} {
		t.Run(tc.server, func(t *testing.T) {
			s := newStation(t)
			for i, args := range [][]string{{"sync", "--server", tc.server, "--token-file", tokenFile}, {"sync"}} {
				_, _, errOut := s.runStdin(t, "", args...)
				warned := strings.Contains(errOut, "is plain HTTP: this desk's token and every scan travel unencrypted")
				if warned != tc.warns {
					t.Errorf("sync %d: warned %v, want %v; stderr %q", i+1, warned, tc.warns, errOut)
				}
				if strings.Contains(errOut, "qrd_token") {
					t.Errorf("stderr repeats the token: %q", errOut)
				}
			}
		})
	}
}
