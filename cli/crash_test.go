package cli

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"qrdesk/store"
)

// soak reports whether the long variants run (make soak).
func soak() bool { return os.Getenv("QRDESK_SOAK") != "" }

func (s *station) openDB(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(s.dir, "qrdesk.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func queryInt(t *testing.T, db *store.DB, q string, args ...any) int {
	t.Helper()
	var n int
	if err := db.SQL().QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// TestKillDuringIssue kills 'qrdesk issue' with SIGKILL at random moments:
// each batch must be whole or absent, serials without gaps or repeats, and
// the database intact.
func TestKillDuringIssue(t *testing.T) {
	runs, count := 5, 50_000
	if soak() {
		runs, count = 20, 200_000
	}
	s := newStation(t)
	s.run(t, "settings", "--serial-digits", "8")
	rng := rand.New(rand.NewPCG(7, 7))
	killed := 0
	for i := 0; i < runs; i++ {
		cmd := s.proc("issue", "--count", strconv.Itoa(count), "--quiet")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// A 50,000-code batch takes about 0.8 s: kill anywhere from before
		// it starts to after it is done.
		time.Sleep(time.Duration(rng.IntN(count/50_000*1500)) * time.Millisecond)
		if cmd.Process.Signal(syscall.SIGKILL) == nil {
			killed++
		}
		cmd.Wait()
	}
	db := s.openDB(t)
	var integrity string
	db.SQL().QueryRow(`PRAGMA integrity_check`).Scan(&integrity)
	if integrity != "ok" {
		t.Fatalf("integrity_check: %s", integrity)
	}
	if n := queryInt(t, db, `SELECT count(*) FROM batches b WHERE b.count <> (SELECT count(*) FROM codes c WHERE c.batch_id = b.id)`); n != 0 {
		t.Fatalf("%d batches are incomplete", n)
	}
	total := queryInt(t, db, `SELECT count(*) FROM codes`)
	if n := queryInt(t, db, `SELECT COALESCE(MAX(serial), 0) FROM codes`); n != total {
		t.Fatalf("highest serial %d but %d codes: a gap", n, total)
	}
	if n := queryInt(t, db, `SELECT count(DISTINCT serial) FROM codes`); n != total {
		t.Fatalf("%d distinct serials for %d codes", n, total)
	}
	t.Logf("%d runs, %d killed, %d whole batches survived (%d codes)", runs, killed, queryInt(t, db, `SELECT count(*) FROM batches`), total)
	// The station carries on: the next batch continues the serials.
	var issued issueOut
	s.mustJSON(t, &issued, "issue", "--count", "3")
	if n := queryInt(t, db, `SELECT MAX(serial) FROM codes`); n != total+3 {
		t.Fatalf("after the crashes the serials went on at %d, want %d", n, total+3)
	}
}

// TestKillDuringRedeemStorm runs waves of 20 concurrent 'qrdesk redeem'
// processes on a few codes and kills some of them at random moments. No
// code may be used twice, used codes and redemption rows must match one to
// one, and every answer a process gave must be in the scan log.
func TestKillDuringRedeemStorm(t *testing.T) {
	waves := 6
	if soak() {
		waves = 40
	}
	s := newStation(t)
	var issued issueOut
	s.mustJSON(t, &issued, "issue", "--count", "40")
	rng := rand.New(rand.NewPCG(3, 9))
	var mu sync.Mutex
	var traces []string
	answered, killed := 0, 0
	for w := 0; w < waves; w++ {
		var wg sync.WaitGroup
		for p := 0; p < 20; p++ {
			code := issued.Codes[rng.IntN(len(issued.Codes))]
			kill := rng.IntN(3) == 0
			delay := time.Duration(rng.IntN(40)) * time.Millisecond
			wg.Add(1)
			go func() {
				defer wg.Done()
				cmd := s.proc("redeem", "--json", code)
				out, err := cmd.StdoutPipe()
				if err != nil {
					t.Error(err)
					return
				}
				if err := cmd.Start(); err != nil {
					t.Error(err)
					return
				}
				if kill {
					time.AfterFunc(delay, func() { cmd.Process.Signal(syscall.SIGKILL) })
				}
				var v struct {
					TraceID string `json:"trace_id"`
				}
				decodeErr := json.NewDecoder(out).Decode(&v)
				cmd.Wait()
				mu.Lock()
				defer mu.Unlock()
				if decodeErr == nil && v.TraceID != "" {
					traces = append(traces, v.TraceID)
					answered++
				} else {
					killed++
				}
			}()
		}
		wg.Wait()
	}
	db := s.openDB(t)
	if n := queryInt(t, db, `SELECT count(*) FROM codes WHERE status = 'used'`); n != queryInt(t, db, `SELECT count(*) FROM redemptions`) {
		t.Fatalf("%d used codes but %d redemption rows", n, queryInt(t, db, `SELECT count(*) FROM redemptions`))
	}
	if n := queryInt(t, db, `SELECT count(*) FROM redemptions r JOIN codes c ON c.id = r.code_id WHERE c.status <> 'used'`); n != 0 {
		t.Fatalf("%d redemption rows for codes that are not used", n)
	}
	if n := queryInt(t, db, `SELECT count(*) FROM (SELECT code_id FROM scans WHERE outcome = 'redeemed' GROUP BY code_id HAVING count(*) > 1)`); n != 0 {
		t.Fatalf("%d codes were redeemed twice", n)
	}
	for _, tr := range traces {
		if queryInt(t, db, `SELECT count(*) FROM scans WHERE trace_id = ?`, tr) != 1 {
			t.Fatalf("answer %s is not in the scan log", tr)
		}
	}
	t.Logf("%d processes answered, %d were killed first; %d codes used", answered, killed, queryInt(t, db, `SELECT count(*) FROM redemptions`))
}
