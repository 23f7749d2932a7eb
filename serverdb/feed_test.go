package serverdb

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"qrdesk/central"
	"qrdesk/internal/testpg"
)

func openPostgresCentral(t *testing.T) *DB {
	t.Helper()
	c, err := Open(context.Background(), testpg.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// insertChange writes one change in its own transaction and leaves it
// open until commit is called.
func insertChange(t *testing.T, c *DB, code string) (commit func()) {
	t.Helper()
	tx, err := c.e.begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.addChanges(context.Background(), tx, change{"code", code, "Desk 1", "{}"}); err != nil {
		t.Fatal(err)
	}
	return func() {
		if err := tx.commit(); err != nil {
			t.Fatal(err)
		}
		tx.done()
	}
}

func feedCodes(t *testing.T, c *DB, after int64) ([]string, int64) {
	t.Helper()
	ch, err := c.Changes(context.Background(), after, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var codes []string
	for _, x := range ch {
		codes = append(codes, x.Code)
		after = x.Seq
	}
	return codes, after
}

// TestFeedNeverPassesALaterCommit (PostgreSQL): a change written first but
// committed last must not be passed by a desk's cursor. A naive feed
// (seq > cursor, no lock) serves the later change first and its cursor
// skips the earlier one forever; ours places it after, when it commits.
func TestFeedNeverPassesALaterCommit(t *testing.T) {
	c := openPostgresCentral(t)
	commitFirst := insertChange(t, c, "FIRST") // gets the smaller seq, commits last
	insertChange(t, c, "SECOND")()             // committed at once
	var naive []string
	rows, err := c.e.query(context.Background(), `SELECT code FROM changes WHERE seq > 0 ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var code string
		rows.Scan(&code)
		naive = append(naive, code)
	}
	rows.Close()
	if strings.Join(naive, ",") != "SECOND" {
		t.Fatalf("the naive feed shows %v; the test needs it to show SECOND alone (and skip FIRST)", naive)
	}
	got, cursor := feedCodes(t, c, 0)
	if strings.Join(got, ",") != "SECOND" && len(got) != 0 {
		t.Fatalf("the feed served %v while FIRST was still open", got)
	}
	commitFirst()
	more, _ := feedCodes(t, c, cursor)
	if got = append(got, more...); strings.Join(got, ",") != "SECOND,FIRST" {
		t.Fatalf("from the desk's cursor the feed serves %v in all, want SECOND then FIRST (in commit order, none skipped)", got)
	}
}

// TestFeedNotHeldByOtherTransactions (found by the hostile pass): a long
// transaction elsewhere in the cluster, or one that writes nothing to the
// feed, does not hold the feed back.
func TestFeedNotHeldByOtherTransactions(t *testing.T) {
	c := openPostgresCentral(t)
	long, err := c.e.begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer long.done()
	if _, err := long.exec(context.Background(), `INSERT INTO deployment (key, value) VALUES ('long', 'transaction')`); err != nil {
		t.Fatal(err)
	}
	insertChange(t, c, "AFTER")()
	if got, _ := feedCodes(t, c, 0); strings.Join(got, ",") != "AFTER" {
		t.Fatalf("with an unrelated transaction open the feed serves %v, want AFTER", got)
	}
}

// TestFeedUnderConcurrentWriters (PostgreSQL): 16 writers add changes
// while a desk follows the feed; every change reaches the desk exactly
// once, in increasing positions.
func TestFeedUnderConcurrentWriters(t *testing.T) {
	c := openPostgresCentral(t)
	const writers, each = 16, 40
	var wg sync.WaitGroup
	stop := make(chan struct{})
	seen := map[string]int{}
	var cursor int64
	follow := func() {
		codes, next := feedCodes(t, c, cursor)
		if next < cursor {
			t.Errorf("the cursor went back: %d after %d", next, cursor)
		}
		cursor = next
		for _, code := range codes {
			seen[code]++
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				follow()
			}
		}
	}()
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				tx, err := c.e.begin(context.Background())
				if err != nil {
					t.Error(err)
					return
				}
				c.addChanges(context.Background(), tx, change{"code", fmt.Sprintf("W%02d-%03d", w, i), "Desk", "{}"})
				tx.commit()
				tx.done()
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-done
	follow()
	if len(seen) != writers*each {
		t.Fatalf("the desk saw %d of %d changes", len(seen), writers*each)
	}
	for code, n := range seen {
		if n != 1 {
			t.Fatalf("%s seen %d times", code, n)
		}
	}
}

// TestNoLockInTheWritePath: the statements of the redemption and event
// path take no advisory or table lock; the only advisory locks are the
// migration runner's, the feed placer's and the mark of a served database
// (serving.go, once at start and by a restore). The only row locks are a
// label's own row and its entitlement root's, held by a decision about
// that label (labellock.go): one label's events wait for each other,
// other labels' never.
func TestNoLockInTheWritePath(t *testing.T) {
	lock := regexp.MustCompile(`(?i)pg_advisory|LOCK TABLE|FOR UPDATE|pg_try_advisory`)
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") { // migrations run under a lock, before serving, in internal/sqlstore
			continue
		}
		src, err := os.ReadFile(filepath.Join(".", f))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(src), "\n") {
			labelRow := f == "labellock.go" && strings.Contains(line, "FOR UPDATE") && !strings.Contains(strings.ToLower(line), "advisory")
			if labelRow && !strings.Contains(line, "FROM codes WHERE code = ? FOR UPDATE") && !strings.Contains(line, "selectCode+` FOR UPDATE`") {
				t.Errorf("%s:%d locks more than one label's row: %s", f, i+1, strings.TrimSpace(line))
			}
			// serving.go's mark of a served database: taken once when
			// serve starts and by a restore, on a connection of its own.
			servingMark := f == "serving.go" && strings.Contains(line, "servingLockKey")
			if lock.MatchString(line) && !strings.Contains(line, "advisory_xact_lock(8427)") && !labelRow && !servingMark {
				t.Errorf("%s:%d takes a lock: %s", f, i+1, strings.TrimSpace(line))
			}
		}
	}
	// The one allowed lock is in the feed reader (placeChanges), which the
	// write path never calls.
	var src []byte
	for _, f := range files {
		if !strings.HasSuffix(f, "_test.go") {
			b, _ := os.ReadFile(f)
			src = append(src, b...)
		}
	}
	body := string(src)
	for _, writer := range []string{"func (c *DB) decide(", "func (c *DB) redeem(", "func (c *DB) uploadPiece(", "func (c *DB) setDisabled(", "func (c *DB) conflict("} {
		i := strings.Index(body, writer)
		if i < 0 {
			t.Fatalf("no %s in the package", writer)
		}
		j := strings.Index(body[i:], "\n}\n") + i
		if strings.Contains(body[i:j], "placeChanges") {
			t.Errorf("%s calls the feed placer", writer)
		}
	}
	var _ central.Store = (*DB)(nil)
}
