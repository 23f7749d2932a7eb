package cli

import (
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"qrdesk/internal/serverdbtest"
)

// cuttingProxy forwards loopback TCP to target. While cut is set, it lets
// each request reach the server but closes the connection before the answer
// gets back: the server committed, the station never heard.
type cuttingProxy struct {
	ln      net.Listener
	target  string
	cut     atomic.Bool
	dropped atomic.Int32
}

func newCuttingProxy(t *testing.T, target string) *cuttingProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cuttingProxy{ln: ln, target: target}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			go p.serve(client)
		}
	}()
	return p
}

func (p *cuttingProxy) serve(client net.Conn) {
	defer client.Close()
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		return
	}
	defer server.Close()
	go io.Copy(server, client)
	if p.cut.Load() {
		// Read the server's answer (so it surely committed), drop it.
		buf := make([]byte, 1)
		server.Read(buf)
		p.dropped.Add(1)
		return
	}
	io.Copy(client, server)
}

// TestSyncSurvivesLostAnswers: every answer to the station is lost after
// the server committed; the station retries and nothing is doubled.
func TestSyncSurvivesLostAnswers(t *testing.T) {
	cs := buildServer(t)
	token := cs.addStation(t, "Desk 1", "A")
	cs.start(t)
	proxy := newCuttingProxy(t, cs.addr)
	s := newStation(t)
	s.run(t, "settings", "--station-name", "Desk 1")
	os.WriteFile(filepath.Join(s.dir, "sync.json"), []byte(fmt.Sprintf(`{"server":"http://%s","token":%q}`, proxy.ln.Addr(), token)), 0o600)
	var issued issueOut
	s.mustJSON(t, &issued, "issue", "--count", "6")
	if code, _, errOut := s.run(t, "sync"); code != 0 {
		t.Fatal(errOut)
	}
	proxy.cut.Store(true)
	// Online scans whose answers are lost: the station decides offline.
	for _, c := range issued.Codes[:4] {
		out, _ := s.proc("redeem", "--json", c).Output()
		if !strings.Contains(string(out), `"outcome": "redeemed"`) {
			t.Fatalf("scan with the answer lost: %s", out)
		}
	}
	// Separate processes, as a station's sync runs: no connection survives
	// from before the cut.
	sync := func() error { return s.proc("sync").Run() }
	for i := 0; i < 3; i++ {
		if sync() == nil {
			t.Fatal("sync succeeded although every answer was lost")
		}
	}
	proxy.cut.Store(false)
	for i := 0; i < 2; i++ { // the second run is a no-op
		if err := sync(); err != nil {
			t.Fatalf("sync after the network came back: %v", err)
		}
	}
	db := s.openDB(t)
	if n := queryInt(t, db, `SELECT count(*) FROM outbox WHERE state <> 'sent'`); n != 0 {
		t.Fatalf("%d events still waiting", n)
	}
	central := cs.openCentral(t)
	// The server committed each online redemption whose answer was lost. The
	// station then decided offline under the same event id (the scan's trace
	// id), so the upload is recognised as the same event: one redemption per
	// code, no second event, no conflict of the desk with itself.
	events := len(central.Events(serverdbtest.Where{Kind: "redeem"}))
	redeemed := central.Count(`SELECT count(*) FROM events WHERE kind = 'redeem' AND outcome = 'redeemed'`)
	conflicts, used := central.CountConflicts(), central.CountLabels("used")
	if used != 4 || events != 4 || redeemed != 4 || conflicts != 0 {
		t.Fatalf("server: %d codes used, %d events (%d redeemed), %d conflicts; want 4, 4, 4, 0 (dropped %d answers)", used, events, redeemed, conflicts, proxy.dropped.Load())
	}
	if n := queryInt(t, db, `SELECT count(*) FROM outbox WHERE result LIKE '%"duplicate":true%'`); n != 4 {
		t.Fatalf("%d outbox events were recognised as already applied, want 4", n)
	}
	t.Logf("%d answers dropped; %d events on the server, %d conflicts", proxy.dropped.Load(), events, conflicts)
}
