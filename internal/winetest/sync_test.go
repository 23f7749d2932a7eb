package winetest

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"qrdesk/internal/serverdbtest"
	"qrdesk/serverdb"
)

// linuxServer is a Linux qrdesk-server process on loopback, which the
// Windows desks under wine reach as they would a server on the network.
type linuxServer struct {
	bin, db, addr string
	cmd           *exec.Cmd
}

// newLinuxServer builds qrdesk-server for Linux (pure Go) on a new SQLite
// database; start runs it.
func newLinuxServer(t *testing.T, root string) *linuxServer {
	t.Helper()
	dir := t.TempDir()
	s := &linuxServer{bin: filepath.Join(dir, "qrdesk-server"), db: filepath.Join(dir, "server.db")}
	build := exec.Command("go", "build", "-o", s.bin, "./cmd/qrdesk-server")
	build.Dir = root
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building qrdesk-server: %v\n%s", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.addr = ln.Addr().String()
	ln.Close()
	t.Cleanup(s.stop)
	return s
}

// addStation enrols a desk and returns its token.
func (s *linuxServer) addStation(t *testing.T, name, letter string) string {
	t.Helper()
	out, err := exec.Command(s.bin, "station", "add", name, "--letter", letter, "--db", s.db).Output()
	if err != nil {
		t.Fatalf("qrdesk-server station add: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1]
}

func (s *linuxServer) start(t *testing.T) {
	t.Helper()
	s.cmd = exec.Command(s.bin, "--db", s.db, "--listen", s.addr)
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if conn, err := net.Dial("tcp", s.addr); err == nil {
			conn.Close()
			return
		}
	}
	t.Fatal("qrdesk-server did not start listening")
}

func (s *linuxServer) stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Kill()
		s.cmd.Wait()
		s.cmd = nil
	}
}

// desk is qrdesk.exe with its own data folder (QRDESK_HOME) in the shared
// prefix: another desk PC, as far as the database and sync.json go.
func (h *harness) desk(t *testing.T, folder string, env ...string) (*harness, string) {
	t.Helper()
	data := filepath.Join(h.home(), "AppData", "Roaming", folder)
	os.RemoveAll(data)
	d := *h
	d.extraEnv = append(append(append([]string(nil), h.extraEnv...), `QRDESK_HOME=C:\users\`+winUser+`\AppData\Roaming\`+folder), env...)
	return &d, data
}

// TestSyncUnderWine: two Windows desks (qrdesk.exe under wine, each its
// own data folder) sync with a Linux qrdesk-server on loopback. Desk A
// issues; both sync, so desk B knows A's labels. The server goes away and
// both desks redeem the same label: each, offline, can only say
// "redeemed". Once the server is back and both have synced, the server and
// both desks list that one conflict, and the other labels are as they were.
// sync.json, which holds the desk's token, is readable by its owner only,
// and one that others may read is made so.
func TestSyncUnderWine(t *testing.T) {
	h := newHarness(t)
	srv := newLinuxServer(t, h.root)
	// One key ring for the deployment, as every desk of a site shares.
	keyEnv := `QRDESK_KEY_FILE=C:\users\` + winUser + `\AppData\Roaming\qrdesk-site.key`
	os.Remove(filepath.Join(h.home(), "AppData", "Roaming", "qrdesk-site.key"))
	type deskInfo struct {
		h      *harness
		data   string
		letter string
		name   string
	}
	desks := []*deskInfo{{letter: "A", name: "Desk A"}, {letter: "B", name: "Desk B"}}
	srv.start(t)
	for _, d := range desks {
		d.h, d.data = h.desk(t, "qrdesk-desk-"+d.letter, keyEnv)
		d.h.must(t, "init")
		d.h.must(t, "settings", "--prefix", "WH", "--station-id", d.letter, "--station-name", d.name)
		// The token as an administrator hands it over: a file, given once.
		token := srv.addStation(t, d.name, d.letter)
		tokenFile := filepath.Join(h.home(), "Documents", d.letter+" token.txt")
		os.MkdirAll(filepath.Dir(tokenFile), 0o755)
		if err := os.WriteFile(tokenFile, []byte(token+"\r\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		out := d.h.must(t, "sync", "--server", "http://"+srv.addr, "--token-file", `C:\users\`+winUser+`\Documents\`+d.letter+` token.txt`)
		t.Logf("%s: qrdesk.exe sync --server http://%s --token-file …:\n%s", d.name, srv.addr, out)
		os.Remove(tokenFile)
		assertOwnerOnly(t, filepath.Join(d.data, "sync.json"))
	}
	a, b := desks[0].h, desks[1].h

	// A sync.json Everyone may read (wine shows that as the others' mode
	// bits), as an older qrdesk.exe left it: the next command makes it the
	// user's only.
	loose := filepath.Join(desks[0].data, "sync.json")
	if err := os.Chmod(loose, 0o644); err != nil {
		t.Fatal(err)
	}
	a.must(t, "conflicts")
	assertOwnerOnly(t, loose)

	var issued issueOut
	a.mustJSON(t, &issued, "issue", "--count", "4", "--ref", "Zoë 张", "--json")
	a.must(t, "sync")
	b.must(t, "sync") // B now knows A's labels

	// Online: A redeems one, B is refused it through the server.
	var v struct{ Outcome, Reason string }
	a.mustJSON(t, &v, "redeem", "--json", issued.Codes[0])
	if v.Outcome != "redeemed" {
		t.Fatalf("online redeem at A: %+v", v)
	}
	code, out, _ := b.run(t, "redeem", "--json", issued.Codes[0])
	a.decode(t, out, &v)
	if code != 1 || v.Outcome != "already_used" {
		t.Fatalf("online second use at B: exit %d %+v, want refused as already used", code, v)
	}

	// Offline: the same label at both desks. Neither can know.
	srv.stop()
	double := issued.Codes[1]
	for _, d := range desks {
		code, out, errOut := d.h.run(t, "redeem", "--json", double)
		d.h.decode(t, out, &v)
		if code != 0 || v.Outcome != "redeemed" {
			t.Fatalf("offline redeem at %s: exit %d %+v %s", d.name, code, v, errOut)
		}
		code, out, errOut = d.h.run(t, "sync")
		if code == 0 || !strings.Contains(out+errOut, "could not be reached") {
			t.Fatalf("sync at %s with the server down: exit %d, want a failure saying it could not be reached:\n%s%s", d.name, code, out, errOut)
		}
		t.Logf("%s: qrdesk.exe sync, the server down: exit %d: %s", d.name, code, strings.TrimSpace(out+errOut))
	}

	srv.start(t)
	for _, d := range []*harness{a, b, a, b} { // the second round brings each desk the conflict the other caused
		d.must(t, "sync")
	}

	central, err := serverdb.Open(context.Background(), srv.db)
	if err != nil {
		t.Fatal(err)
	}
	defer central.Close()
	srvdb := serverdbtest.Of(t, central)
	if conflicts := srvdb.Conflicts(); len(conflicts) != 1 || conflicts[double] != 1 {
		t.Fatalf("server conflicts: %v; want one, for %s", conflicts, double)
	}
	if n := srvdb.CountLabels("used"); n != 2 {
		t.Fatalf("%d labels used on the server, want 2", n)
	}
	report, err := exec.Command(srv.bin, "report", "--db", srv.db).Output()
	if err != nil || !strings.Contains(string(report), double) {
		t.Errorf("qrdesk-server report does not list %s: %v\n%s", double, err, report)
	}
	for _, d := range desks {
		var list []struct {
			Code          string `json:"code"`
			FirstStation  string `json:"first_station"`
			SecondStation string `json:"second_station"`
		}
		d.h.mustJSON(t, &list, "conflicts", "--json")
		if len(list) != 1 || list[0].Code != double || list[0].FirstStation == list[0].SecondStation {
			t.Fatalf("%s lists conflicts %+v, want one for %s between the two desks", d.name, list, double)
		}
		var st struct{ Status string }
		d.h.mustJSON(t, &st, "check", "--json", issued.Codes[2])
		if st.Status != "unused" {
			t.Fatalf("%s: an untouched label is %s", d.name, st.Status)
		}
	}
	t.Logf("qrdesk.exe conflicts (desk A):\n%s", a.must(t, "conflicts"))
}

// assertOwnerOnly: a file holding a secret is the user's alone. Wine keeps
// no DACL: it turns the one it is given into Unix mode bits and derives one
// from them when asked, with Everyone for the others' bits. An owner-only
// DACL comes out as 0770 (the key file's too), a file Everyone may read
// as 0644; so the others' bits are what tells (as in TestCLIUnderWine).
func assertOwnerOnly(t *testing.T, path string) {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm()&0o007 != 0 {
		t.Fatalf("%s is %v under wine: Everyone may read it, want owner-only", path, info.Mode().Perm())
	}
}
