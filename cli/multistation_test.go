package cli

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"qrdesk/internal/serverdbtest"
	"qrdesk/internal/testclock"
	"qrdesk/internal/testpg"
	"qrdesk/serverdb"
)

// centralServer is a real qrdesk-server process on loopback.
type centralServer struct {
	bin, db, addr string
	cmd           *exec.Cmd
}

func buildServer(t *testing.T) *centralServer {
	t.Helper()
	return buildServerOn(t, filepath.Join(t.TempDir(), "server.db"))
}

// buildServerOn builds qrdesk-server and prepares one on the database db
// (a SQLite file or a postgres:// URL).
func buildServerOn(t *testing.T, db string) *centralServer {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "qrdesk-server")
	// The qrdesk_testclock tag lets the server take the tests' clock, so it
	// and the desks agree on the day (a release build has no such switch).
	build := exec.Command("go", "build", "-tags", "qrdesk_testclock", "-o", bin, "../cmd/qrdesk-server")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build qrdesk-server: %v\n%s", err, out)
	}
	return (&centralServer{bin: bin, db: db}).sibling(t)
}

// sibling is another server process on the same database, on its own port:
// stateless servers behind a load balancer.
func (cs *centralServer) sibling(t *testing.T) *centralServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &centralServer{bin: cs.bin, db: cs.db, addr: ln.Addr().String()}
	ln.Close()
	t.Cleanup(s.stop)
	return s
}

func (cs *centralServer) addStation(t *testing.T, name, letter string) string {
	t.Helper()
	cmd := exec.Command(cs.bin, "station", "add", name, "--letter", letter, "--db", cs.db)
	cmd.Env = append(os.Environ(), testclock.Env(testNow()))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("station add: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1]
}

func (cs *centralServer) start(t *testing.T) {
	t.Helper()
	cs.cmd = exec.Command(cs.bin, "--db", cs.db, "--listen", cs.addr)
	cs.cmd.Env = append(os.Environ(), testclock.Env(testNow()))
	if err := cs.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 200; i++ {
		if conn, err := net.Dial("tcp", cs.addr); err == nil {
			conn.Close()
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("qrdesk-server did not start")
}

func (cs *centralServer) stop() {
	if cs.cmd != nil && cs.cmd.Process != nil {
		cs.cmd.Process.Kill()
		cs.cmd.Wait()
		cs.cmd = nil
	}
}

// TestMultiStationSync: a server and 8 stations (real processes, their own
// SQLite files, one key ring). Codes are scanned at random desks, first
// online, then with the server stopped, some at two desks. Afterwards every
// code is redeemed at most once on the server, every offline double use is
// exactly one conflict, seen by every station, and every outbox event
// reached the server exactly once.
func TestMultiStationSync(t *testing.T) {
	t.Run("SQLite", func(t *testing.T) { multiStation(t, buildServer(t), 1) })
	t.Run("PostgreSQL", func(t *testing.T) { multiStation(t, buildServerOn(t, testpg.URL(t)), 2) })
}

func multiStation(t *testing.T, cs *centralServer, servers int) {
	perStation := 12
	if soak() {
		perStation = 500
	}
	fleet := []*centralServer{cs}
	for len(fleet) < servers {
		fleet = append(fleet, cs.sibling(t))
	}
	const desks = 8
	keyFile := filepath.Join(t.TempDir(), "deployment.key")
	var st [desks]*station
	var codes []string
	for i := range st {
		st[i] = newBareStation(t)
		token := cs.addStation(t, fmt.Sprintf("Desk %d", i+1), string(rune('A'+i)))
		s := st[i]
		if code, _, errOut := s.run(t, "init", "--key-file", keyFile); code != 0 { // the first desk creates the deployment's key file
			t.Fatal(errOut)
		}
		if code, _, errOut := s.run(t, "settings", "--key-file", keyFile, "--station-id", string(rune('A'+i)), "--station-name", fmt.Sprintf("Desk %d", i+1), "--serial-digits", "5"); code != 0 {
			t.Fatal(errOut)
		}
		os.WriteFile(filepath.Join(s.dir, "sync.json"), []byte(fmt.Sprintf(`{"server":"http://%s","token":%q}`, fleet[i%len(fleet)].addr, token)), 0o600)
		var issued issueOut
		s.mustJSON(t, &issued, "issue", "--count", fmt.Sprint(perStation), "--key-file", keyFile)
		codes = append(codes, issued.Codes...)
	}
	startAll := func() {
		for _, f := range fleet {
			f.start(t)
		}
	}
	startAll()
	syncAll := func() {
		for _, s := range st {
			if code, out, errOut := s.run(t, "sync", "--key-file", keyFile); code != 0 {
				t.Fatalf("sync: %d %s %s", code, out, errOut)
			}
		}
	}
	syncAll()

	rng := rand.New(rand.NewPCG(11, 5))
	scan := func(s *station, code string) string {
		cmd := s.proc("redeem", "--json", "--key-file", keyFile, code)
		out, _ := cmd.Output()
		var v struct{ Outcome string }
		json.Unmarshal(out, &v)
		return v.Outcome
	}
	rng.Shuffle(len(codes), func(i, j int) { codes[i], codes[j] = codes[j], codes[i] })
	online, offline := codes[:len(codes)/2], codes[len(codes)/2:]

	// Online: each code at a random desk, a quarter of them again at another.
	redeemedOnline := 0
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i, code := range online {
		desk := rng.IntN(desks)
		again := i%4 == 0
		other := (desk + 1 + rng.IntN(desks-1)) % desks
		wg.Add(1)
		go func() {
			defer wg.Done()
			first := scan(st[desk], code)
			second := ""
			if again {
				second = scan(st[other], code)
			}
			mu.Lock()
			defer mu.Unlock()
			if first == "redeemed" {
				redeemedOnline++
			}
			if again && second != "already_used" {
				t.Errorf("online second scan of %s at another desk: %s", code, second)
			}
		}()
		if i%8 == 7 {
			wg.Wait()
		}
	}
	wg.Wait()
	if redeemedOnline != len(online) {
		t.Fatalf("%d of %d online scans redeemed", redeemedOnline, len(online))
	}
	syncAll()

	// The servers go down; desks decide alone. Every third code is scanned
	// at two desks: an offline double use.
	for _, f := range fleet {
		f.stop()
	}
	doubles := map[string]bool{}
	for i, code := range offline {
		desk := rng.IntN(desks)
		if out := scan(st[desk], code); out != "redeemed" {
			t.Fatalf("offline scan of %s: %s", code, out)
		}
		if i%3 == 0 {
			other := (desk + 1 + rng.IntN(desks-1)) % desks
			if out := scan(st[other], code); out != "redeemed" {
				t.Fatalf("offline scan of %s at a second desk: %s (it cannot know yet)", code, out)
			}
			doubles[code] = true
		}
	}
	startAll()
	syncAll()
	syncAll() // the second round brings every desk the conflicts the others caused

	central, err := serverdb.Open(context.Background(), cs.db)
	if err != nil {
		t.Fatal(err)
	}
	defer central.Close()
	srv := serverdbtest.Of(t, central)
	q := srv.Count
	if n := srv.CountLabels("used"); n != len(codes) {
		t.Fatalf("%d codes used on the server, want all %d", n, len(codes))
	}
	if n := q(`SELECT count(*) FROM (SELECT code FROM events WHERE outcome = 'redeemed' GROUP BY code HAVING count(*) > 1) AS twice`); n != 0 {
		t.Fatalf("%d codes redeemed twice on the server", n)
	}
	if n := srv.CountConflicts(); n != len(doubles) {
		t.Fatalf("%d conflicts, want %d offline double uses", n, len(doubles))
	}
	// The server (online scans) and the desks (offline scans) kept one clock:
	// every redemption is on the suite's day.
	if n := q(`SELECT count(*) FROM codes WHERE used_at < ? OR used_at >= ?`, testclock.Day().Unix(), testclock.Day().AddDate(0, 0, 1).Unix()); n != 0 {
		t.Fatalf("%d codes used at a time outside %s", n, testclock.Date(0))
	}
	conflicts := srv.Conflicts()
	for code := range doubles {
		if conflicts[code] != 1 {
			t.Fatalf("double use of %s is not exactly one conflict", code)
		}
	}
	for i, s := range st {
		db := s.openDB(t)
		if n := queryInt(t, db, `SELECT count(*) FROM outbox WHERE state <> 'sent'`); n != 0 {
			t.Fatalf("desk %d: %d events not uploaded", i+1, n)
		}
		rows, _ := db.SQL().Query(`SELECT event_id FROM outbox`)
		for rows.Next() {
			var id string
			rows.Scan(&id)
			if q(`SELECT count(*) FROM events WHERE event_id = ?`, id) != 1 {
				t.Fatalf("desk %d: event %s is not on the server exactly once", i+1, id)
			}
		}
		rows.Close()
		if n := queryInt(t, db, `SELECT count(*) FROM conflicts`); n != len(doubles) {
			t.Fatalf("desk %d lists %d conflicts, want %d", i+1, n, len(doubles))
		}
		if n := queryInt(t, db, `SELECT count(*) FROM codes WHERE status = 'used'`); n != len(codes) {
			t.Fatalf("desk %d knows %d used codes, want %d", i+1, n, len(codes))
		}
	}
	// The key never reaches the server.
	if serverFile, err := os.ReadFile(cs.db); err == nil {
		var kf struct{ Keys []struct{ Secret string } }
		data, _ := os.ReadFile(keyFile)
		json.Unmarshal(data, &kf)
		for _, k := range kf.Keys {
			raw, _ := base64.StdEncoding.DecodeString(k.Secret)
			if len(raw) == 0 || bytes.Contains(serverFile, raw) || bytes.Contains(serverFile, []byte(k.Secret)) {
				t.Fatal("key bytes found in the server database")
			}
		}
	}
	t.Logf("%d codes at %d desks: %d decided online, %d offline, %d offline double uses → %d conflicts",
		len(codes), desks, len(online), len(offline), len(doubles), srv.CountConflicts())
}

// openCentral opens the server's database for the test's questions.
func (cs *centralServer) openCentral(t *testing.T) *serverdbtest.Server {
	t.Helper()
	db, err := serverdb.Open(context.Background(), cs.db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return serverdbtest.Of(t, db)
}

// TestSyncKilledServerAndResend kills the server while a station uploads a
// large batch and its events, restarts it, syncs again, then makes the
// station send everything a second time: every code and event is on the
// server exactly once.
func TestSyncKilledServerAndResend(t *testing.T) {
	cs := buildServer(t)
	token := cs.addStation(t, "Desk 1", "A")
	s := newStation(t)
	s.run(t, "settings", "--station-name", "Desk 1", "--serial-digits", "6")
	os.WriteFile(filepath.Join(s.dir, "sync.json"), []byte(fmt.Sprintf(`{"server":"http://%s","token":%q}`, cs.addr, token)), 0o600)
	var issued issueOut
	s.mustJSON(t, &issued, "issue", "--count", "20000", "--quiet")
	for _, c := range issued.Codes[:30] { // decided offline: the server is not running yet
		s.proc("redeem", c).Run()
	}
	cs.start(t)
	sync := s.proc("sync")
	if err := sync.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(400 * time.Millisecond)
	cs.stop() // in the middle of the upload
	sync.Wait()
	cs.start(t)
	t0 := time.Now()
	if out, err := s.proc("sync").CombinedOutput(); err != nil {
		t.Fatalf("sync after the restart: %v %s", err, out)
	}
	t.Logf("sync after the restart took %v", time.Since(t0))
	db := s.openDB(t)
	db.SQL().Exec(`UPDATE outbox SET state = 'pending'`)
	db.SQL().Exec(`UPDATE batches SET uploaded = 0`)
	if out, err := s.proc("sync").CombinedOutput(); err != nil {
		t.Fatalf("sending everything again: %v %s", err, out)
	}
	central := cs.openCentral(t)
	codes, events := central.CountLabels(""), len(central.Events(serverdbtest.Where{}))
	used, conflicts := central.CountLabels("used"), central.CountConflicts()
	if codes != 20000 || events != 30 || used != 30 || conflicts != 0 {
		t.Fatalf("server: %d codes, %d events, %d used, %d conflicts; want 20000, 30, 30, 0", codes, events, used, conflicts)
	}
	if n := queryInt(t, db, `SELECT count(*) FROM outbox WHERE state <> 'sent'`); n != 0 {
		t.Fatalf("%d events not sent", n)
	}
}

// TestUnknownCodeAcceptedOffline: with the server down, a desk accepts a
// correctly signed label issued at another desk that it has never seen,
// flagged; once both desks sync, the server has that one redemption.
func TestUnknownCodeAcceptedOffline(t *testing.T) {
	cs := buildServer(t)
	keyFile := filepath.Join(t.TempDir(), "deployment.key")
	var desks [2]*station
	for i := range desks {
		desks[i] = newBareStation(t)
		token := cs.addStation(t, fmt.Sprintf("Desk %d", i+1), string(rune('A'+i)))
		if code, _, errOut := desks[i].run(t, "init", "--key-file", keyFile); code != 0 {
			t.Fatal(errOut)
		}
		desks[i].run(t, "settings", "--key-file", keyFile, "--station-id", string(rune('A'+i)), "--station-name", fmt.Sprintf("Desk %d", i+1))
		os.WriteFile(filepath.Join(desks[i].dir, "sync.json"), []byte(fmt.Sprintf(`{"server":"http://%s","token":%q}`, cs.addr, token)), 0o600)
	}
	var issued issueOut
	desks[0].mustJSON(t, &issued, "issue", "--count", "2", "--key-file", keyFile)
	var v struct{ Outcome, Reason string }
	desks[1].mustJSON(t, &v, "redeem", "--key-file", keyFile, issued.Codes[0]) // server down, desk 2 never saw it
	if v.Outcome != "redeemed" || !strings.Contains(v.Reason, "accepted offline") {
		t.Fatalf("unknown label offline: %+v", v)
	}
	cs.start(t)
	for _, d := range []*station{desks[1], desks[0], desks[1], desks[0]} { // desk 2's event waits for desk 1's batch
		if code, _, errOut := d.run(t, "sync", "--key-file", keyFile); code != 0 {
			t.Fatal(errOut)
		}
	}
	central := cs.openCentral(t)
	if station := central.Label(issued.Codes[0]).UsedStation; station != "Desk 2" {
		t.Fatalf("the server has the label used at %q, want Desk 2", station)
	}
	var w struct{ Outcome string }
	desks[0].mustJSON(t, &w, "check", "--key-file", keyFile, issued.Codes[0])
	if w.Outcome != "already_used" {
		t.Fatalf("desk 1 after syncing: %s", w.Outcome)
	}
}
