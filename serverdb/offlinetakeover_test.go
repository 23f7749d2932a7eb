package serverdb

import (
	"context"
	"sync"
	"testing"
	"time"

	"qrdesk/central"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// TestOfflineEventTakesOverItsOnlineAttemptOnce: desk D asked online for a
// label desk B had redeemed offline and uploaded, was told "already used",
// gave up waiting and redeemed alone; its offline redemption, under the
// same id, reaches the server twice at once (a duplicated request). The
// conflict is decided once: one record, one webhook event (one feed change
// as the label's own), and both copies are answered "conflict". On
// PostgreSQL both copies are held at the label's lock, having read the
// online attempt's row, and let go together: the second used to take the
// row over again and write the conflict's changes twice, one fact
// delivered twice under one id.
func TestOfflineEventTakesOverItsOnlineAttemptOnce(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(testing.TB) string) {
		ctx := context.Background()
		c := openTestDB(t, dbPath)
		const now = int64(1796519583)
		station := func(name, letter string) central.Station {
			t.Helper()
			if err := c.AddStation(ctx, central.Station{Name: name, Letter: letter, CreatedAt: now}, "hash "+name); err != nil {
				t.Fatal(err)
			}
			st, err := c.StationByToken(ctx, "hash "+name)
			if err != nil {
				t.Fatal(err)
			}
			return st
		}
		b, d := station("Desk B", "B"), station("Desk D", "D")
		const code = "261205-B0001-BDSLD6Z7CZZY-AKYB9FE7Z"
		if _, _, err := c.UploadBatch(ctx, b, []central.CodeIn{{Code: code, ExpireAt: now + 3600, CreatedAt: now - 60}}, now); err != nil {
			t.Fatal(err)
		}
		apply := func(st central.Station, ev protocol.Event) protocol.Result {
			t.Helper()
			rs, err := c.Apply(ctx, st, []protocol.Event{ev}, now+5)
			if err != nil || len(rs) != 1 {
				t.Fatalf("%s's %s: %v %v", st.Name, ev.EventID, rs, err)
			}
			return rs[0]
		}
		redeem := protocol.Event{EventID: "b-offline", Kind: protocol.KindRedeem, Code: code, Operator: "clerk B", At: now, Offline: true}
		if r := apply(b, redeem); r.Outcome != protocol.OutcomeRedeemed {
			t.Fatalf("desk B's offline redemption: %s, want redeemed", r.Outcome)
		}
		online := protocol.Event{EventID: "d-event", Kind: protocol.KindRedeem, Code: code, Operator: "clerk D", At: now + 1}
		if r := apply(d, online); r.Outcome != protocol.OutcomeAlreadyUsed {
			t.Fatalf("desk D's online attempt: %s, want already_used", r.Outcome)
		}
		offline := online
		offline.Offline = true

		release := func() {}
		if c.e.postgres {
			holder, err := c.e.begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer holder.done()
			if _, err := c.lockLabel(ctx, holder, code); err != nil {
				t.Fatal(err)
			}
			release = func() {
				if err := holder.commit(); err != nil {
					t.Error(err)
				}
			}
		}
		var wg sync.WaitGroup
		answers := make([]protocol.Result, 2)
		for i := range answers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				// On PostgreSQL each copy's first decision, assuming its
				// id new, meets the online attempt's row and is rolled
				// back; the race is in the decision that follows, knowing
				// the id (applyKnown), held here at the label's lock.
				var err error
				if c.e.postgres {
					answers[i], err = c.applyKnown(ctx, d, offline, now+5)
				} else {
					var rs []protocol.Result
					if rs, err = c.Apply(ctx, d, []protocol.Event{offline}, now+5); err == nil {
						answers[i] = rs[0]
					}
				}
				if err != nil {
					t.Errorf("copy %d of desk D's offline redemption: %v", i, err)
				}
			}()
		}
		if c.e.postgres {
			waitForLockWaiters(t, c, 2)
		}
		release()
		wg.Wait()
		for i, r := range answers {
			if r.Outcome != protocol.OutcomeConflict {
				t.Errorf("copy %d answered %s, want conflict", i, r.Outcome)
			}
		}
		var conflicts, own int
		if err := c.e.queryRow(ctx, `SELECT count(*) FROM conflicts WHERE code = ?`, code).Scan(&conflicts); err != nil {
			t.Fatal(err)
		}
		if err := c.e.queryRow(ctx, `SELECT count(*) FROM changes WHERE code = ? AND kind = 'conflict' AND holder_copy = 0`, code).Scan(&own); err != nil {
			t.Fatal(err)
		}
		if conflicts != 1 || own != 1 {
			t.Errorf("%d conflict records and %d conflict changes as the label's own, want 1 and 1", conflicts, own)
		}
		evs, _, err := c.Handovers(ctx, 0, 1000)
		if err != nil {
			t.Fatal(err)
		}
		ids := map[string]int{}
		for _, ev := range evs {
			if ids[ev.ID]++; ids[ev.ID] == 2 {
				t.Errorf("the webhook outbox holds %s of %s twice under the id %s", ev.Type, ev.Label, ev.ID)
			}
		}
	})
}

// waitForLockWaiters waits until n of the database's sessions wait for a
// lock (PostgreSQL).
func waitForLockWaiters(t *testing.T, c *DB, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var waiting int
		if err := c.e.queryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions wait for a lock after 10s, want %d", waiting, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
