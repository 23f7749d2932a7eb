package multidesk_test

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/serverdbtest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// failoverRun is the size of one failover test.
type failoverRun struct {
	desks  int           // desks scanning at once
	labels int           // labels scanned once…
	twice  int           // …of which this many a second time, at another desk
	kills  int           // primaries killed during the storm
	pace   time.Duration // a clerk's pause between scans
	stall  time.Duration // the standby gets nothing for this long before the kill
	detect time.Duration // from the kill to the promotion (Patroni's ttl, here short)
}

// scanRecord is one scan as the clerk saw it.
type scanRecord struct {
	desk        int
	code, trace string
	outcome     app.Outcome
	online      bool // the server answered it
	start, end  time.Time
}

// answerLog wraps a desk's Remote and records, by event id, every scan the
// server answered: that, and only that, is a scan decided online.
type answerLog struct {
	app.Remote
	mu       sync.Mutex
	asked    map[string]bool             // every event id sent to /v1/redeem
	answered map[string]protocol.Outcome // event id → the server's outcome
}

func (a *answerLog) Redeem(ctx context.Context, ring string, ev protocol.Event) (protocol.Result, error) {
	a.mu.Lock()
	a.asked[ev.EventID] = true
	a.mu.Unlock()
	r, err := a.Remote.Redeem(ctx, ring, ev)
	if err == nil {
		a.mu.Lock()
		a.answered[ev.EventID] = r.Outcome
		a.mu.Unlock()
	}
	return r, err
}

func (a *answerLog) answer(id string) (protocol.Outcome, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	o, ok := a.answered[id]
	return o, ok
}

// killRecord is one failover as the test caused and measured it.
type killRecord struct {
	stalled             time.Time // the primary's WAL sender was frozen
	killing, killed     time.Time // pg_ctl -m immediate stop began, returned
	promoting, promoted time.Time // pg_ctl promote began, returned
	// firstOnline is when the first scan begun after the primary was dead
	// was answered by the server: the gap runs from the stall to it.
	firstOnline              time.Time
	offline, offlineRedeemed int // scans begun in the gap and decided at the desks
	atRisk                   int // "redeemed" answered online in the second before the stall
	inStall                  int // answered online during the stall
	scans                    int // storm scans done before the kill
}

// TestFailoverWithoutLoss runs qrdesk-server on a PostgreSQL primary with a
// synchronous streaming standby (multi-host URL, target_session_attrs=
// read-write), kills the primary during a redemption storm from real desks
// and promotes the standby. The desks decide alone through the gap. Then:
// every redemption the server answered online is on the new primary; no
// label was handed over twice without a conflict on the server; every desk
// event is on the server once. QRDESK_SOAK=1: more desks and scans, and
// five kills, the dead node rebuilt as the new primary's standby between
// them.
func TestFailoverWithoutLoss(t *testing.T) {
	t.Parallel()
	cfg := failoverRun{desks: 3, labels: 150, twice: 50, kills: 1, pace: 60 * time.Millisecond, stall: 300 * time.Millisecond, detect: time.Second}
	if os.Getenv("QRDESK_SOAK") != "" {
		cfg = failoverRun{desks: 6, labels: 4200, twice: 1400, kills: 5, pace: 25 * time.Millisecond, stall: 300 * time.Millisecond, detect: 2 * time.Second}
	}
	began := time.Now()
	ctx := context.Background()
	pg := testpg.StartReplicated(t)
	defer func() {
		if t.Failed() {
			t.Log(pg.Log())
		}
	}()
	h := centraltest.New(t, func(testing.TB) string { return pg.URL() }, 0)

	// Desk A issues the labels; every desk has them before the storm, as
	// desks that synced this morning would.
	desks := make([]*centraltest.Desk, cfg.desks)
	logs := make([]*answerLog, cfg.desks)
	for i := range desks {
		name, letter := fmt.Sprintf("Desk %c", 'A'+i), string(rune('A'+i))
		desks[i] = h.Desk(t, name, letter, h.Station(t, name, letter))
		logs[i] = &answerLog{Remote: desks[i].Svc.Remote, asked: map[string]bool{}, answered: map[string]protocol.Outcome{}}
		desks[i].Svc.Remote = logs[i]
		// A 5xx or no answer: decide alone for a short while, then ask again
		// (the window's background sync would also end it).
		desks[i].Svc.OfflineFor = 300 * time.Millisecond
	}
	codes := desks[0].Issue(t, cfg.labels+1)
	for _, d := range desks {
		d.Sync(t)
	}

	var (
		mu      sync.Mutex
		records []scanRecord
	)
	scan := func(i int, code string) error {
		start := time.Now()
		v, err := desks[i].Svc.Redeem(ctx, code, fmt.Sprintf("clerk%d", i))
		if err != nil {
			return fmt.Errorf("desk %d, %s: %w", i, code, err)
		}
		if v.Outcome == app.OutcomeServerRefused {
			return fmt.Errorf("desk %d, %s: the server refused the desk: %s", i, code, v.Reason)
		}
		// "unknown" (batch not uploaded) is an answer the desk decides on
		// alone; the labels are uploaded here, so it does not happen.
		answer, ok := logs[i].answer(v.TraceID)
		online := ok && answer != protocol.OutcomeUnknown
		mu.Lock()
		records = append(records, scanRecord{desk: i, code: code, trace: v.TraceID, outcome: v.Outcome, online: online, start: start, end: time.Now()})
		mu.Unlock()
		return nil
	}

	// What guarantees it: the primary waits for the standby's flush before
	// a commit returns. With the standby away, a redemption is not
	// acknowledged, the server does not answer, and the desk decides alone
	// after OnlineTimeout.
	rep, err := pg.Replication(ctx)
	if err != nil || rep.SynchronousCommit != "on" || rep.State != "sync" || rep.SynchronousStandbys != rep.Standby {
		t.Fatalf("replication before the storm: %+v, %v; want synchronous_commit on and the standby named and sync", rep, err)
	}
	t.Logf("primary :%d: synchronous_commit=%s synchronous_standby_names=%s; standby %s is %s", pg.Primary(), rep.SynchronousCommit, rep.SynchronousStandbys, rep.Standby, rep.State)
	if err := pg.StopStandby(); err != nil {
		t.Fatal(err)
	}
	if err := scan(0, codes[cfg.labels]); err != nil {
		t.Fatal(err)
	}
	if r := records[0]; r.online || r.outcome != app.OutcomeRedeemed || r.end.Sub(r.start) < desks[0].Svc.OnlineTimeout {
		t.Fatalf("with the standby stopped: %+v after %v, want redeemed by the desk alone after the online timeout", r, r.end.Sub(r.start))
	}
	t.Logf("standby stopped: no answer, the desk decided alone after %v", records[0].end.Sub(records[0].start).Round(time.Millisecond))
	if err := pg.StartStandby(); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := pg.WaitSync(wctx); err != nil {
		t.Fatal(err)
	}

	// The storm: every label once at a random desk, the first `twice` of
	// them again at another desk, in random order.
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	queues := make([][]string, cfg.desks)
	for i, code := range codes[:cfg.labels] {
		d := rng.IntN(cfg.desks)
		queues[d] = append(queues[d], code)
		if i < cfg.twice {
			e := (d + 1 + rng.IntN(cfg.desks-1)) % cfg.desks
			queues[e] = append(queues[e], code)
		}
	}
	total := cfg.labels + cfg.twice
	var done atomic.Int32
	var stop atomic.Bool // the test failed: the clerks stop
	var wg sync.WaitGroup
	for i := range desks {
		rng.Shuffle(len(queues[i]), func(a, b int) { queues[i][a], queues[i][b] = queues[i][b], queues[i][a] })
		wg.Add(1)
		go func() {
			defer wg.Done()
			lastSync := time.Now()
			for _, code := range queues[i] {
				if stop.Load() {
					return
				}
				if err := scan(i, code); err != nil {
					t.Error(err)
					return
				}
				done.Add(1)
				// The window syncs in the background; here between scans.
				if time.Since(lastSync) > time.Second {
					desks[i].Svc.Sync(ctx) // no answer during the gap: the next one
					lastSync = time.Now()
				}
				time.Sleep(cfg.pace)
			}
		}()
	}
	stormDone := make(chan struct{})
	go func() { wg.Wait(); close(stormDone) }()
	// fatal ends the test once the clerks have stopped (their desks and the
	// server are closed when it ends).
	fatal := func(format string, args ...any) {
		t.Helper()
		stop.Store(true)
		<-stormDone
		t.Fatalf(format, args...)
	}
	// waitFor waits for cond while the storm goes on.
	waitFor := func(cond func() bool, what string) {
		t.Helper()
		for !cond() {
			select {
			case <-stormDone:
				if t.Failed() {
					t.FailNow()
				}
				t.Fatalf("the storm ended before %s: make it longer", what)
			case <-time.After(5 * time.Millisecond):
			}
		}
	}

	var kills []killRecord
	for k := range cfg.kills {
		waitFor(func() bool { return int(done.Load()) >= total*(k+1)/(cfg.kills+1) }, fmt.Sprintf("kill %d", k+1))
		rep, err := pg.Replication(ctx)
		if err != nil || rep.State != "sync" || rep.SynchronousCommit != "on" {
			fatal("kill %d: the primary has no synchronous standby: %+v, %v", k+1, rep, err)
		}
		// The kill lands at the worst moment: the standby has fallen behind
		// (its WAL sender frozen, as on a stalled link), so the primary
		// dies holding commits the standby never got. Synchronous
		// replication answered none of them; asynchronous would have, and
		// lost them.
		if err := pg.StallReplication(ctx); err != nil {
			fatal("kill %d: %v", k+1, err)
		}
		kr := killRecord{stalled: time.Now(), scans: int(done.Load())}
		time.Sleep(cfg.stall)
		kr.killing = time.Now()
		if err := pg.KillPrimary(); err != nil {
			fatal("kill %d: %v", k+1, err)
		}
		kr.killed = time.Now()
		time.Sleep(cfg.detect)
		kr.promoting = time.Now()
		if err := pg.Promote(); err != nil {
			fatal("promote after kill %d: %v", k+1, err)
		}
		kr.promoted = time.Now()
		t.Logf("kill %d: primary killed after %d scans (pg_ctl took %v), standby :%d promoted %v later (promotion took %v)", k+1, kr.scans,
			kr.killed.Sub(kr.killing).Round(time.Millisecond), pg.Primary(), kr.promoted.Sub(kr.killing).Round(time.Millisecond),
			kr.promoted.Sub(kr.promoting).Round(time.Millisecond))
		kills = append(kills, kr)
		if k < cfg.kills-1 {
			// The dead node comes back as the new primary's synchronous
			// standby before the next kill, as Patroni would rebuild it.
			rctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
			err := pg.Rejoin(rctx)
			cancel()
			if err != nil {
				fatal("rejoin after kill %d: %v", k+1, err)
			}
			// The next kill waits for an online answer after this one.
			waitFor(func() bool { return onlineAfter(&mu, &records, kr.promoted) }, fmt.Sprintf("an online answer after kill %d", k+1))
		}
	}
	<-stormDone
	if t.Failed() {
		t.FailNow()
	}

	// 1. Nothing the server answered "redeemed" is missing on the new
	// primary: asked directly, before any desk syncs again (online
	// redemptions are not in any outbox, so nothing could bring one back).
	primary, err := sql.Open("pgx", pg.NodeURL(pg.Primary()))
	if err != nil {
		t.Fatal(err)
	}
	defer primary.Close()
	var inRecovery bool
	if err := primary.QueryRowContext(ctx, `SELECT pg_is_in_recovery()`).Scan(&inRecovery); err != nil || inRecovery {
		t.Fatalf("the promoted node :%d is not a primary: %v %v", pg.Primary(), inRecovery, err)
	}
	onlineRedeemed, missing := 0, 0
	for _, r := range records {
		if !r.online || r.outcome != app.OutcomeRedeemed {
			continue
		}
		onlineRedeemed++
		var n int
		if err := primary.QueryRowContext(ctx, `SELECT count(*) FROM events e JOIN codes c ON c.code = e.code
			WHERE e.event_id = $1 AND e.outcome = 'redeemed' AND c.status = 'used'`, r.trace).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			missing++
			t.Errorf("desk %d was told online that %s was redeemed (event %s, answered %v after it began); the new primary does not have it",
				r.desk, r.code, r.trace, r.end.Sub(r.start))
		}
	}

	// 2. The desks sync again: every sync must succeed now, so the server's
	// pool is on the promoted node.
	for range 2 {
		for _, d := range desks {
			d.Sync(t)
		}
	}

	// 3. No double use without a conflict, and every label a clerk handed
	// over is used on the server.
	told := map[string]int{}
	for _, r := range records {
		if r.outcome == app.OutcomeRedeemed {
			told[r.code]++
		}
	}
	conflicts := h.Server(t).Conflicts()
	nConflicts := 0
	for _, n := range conflicts {
		nConflicts += n
	}
	doubles := 0
	for code, n := range told {
		if n > 1 {
			doubles++
		}
		if n > 1+conflicts[code] {
			t.Errorf("%s: %d desks handed it over, %d conflicts on the server", code, n, conflicts[code])
		}
		if h.Server(t).CountLabel(code, "used") != 1 {
			t.Errorf("%s was handed over but is not used on the server", code)
		}
	}

	// 4. Every desk event is on the server once: the scans the server
	// answered, and everything in the outboxes (all sent, none rejected).
	// The server has no event no desk sent.
	sent := map[string]bool{}
	outboxed := 0
	for i, d := range desks {
		if n := d.Count(t, `SELECT count(*) FROM outbox WHERE state <> 'sent'`); n != 0 {
			t.Errorf("desk %d: %d outbox events not accepted", i, n)
		}
		rows, err := d.DB.SQL().Query(`SELECT event_id FROM outbox`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id string
			rows.Scan(&id)
			sent[id] = true
			outboxed++
		}
		rows.Close()
		logs[i].mu.Lock()
		for id, outcome := range logs[i].answered {
			if outcome != protocol.OutcomeUnknown {
				sent[id] = true
			}
		}
		logs[i].mu.Unlock()
	}
	for id := range sent {
		if n := len(h.Server(t).Events(serverdbtest.Where{EventID: id})); n != 1 {
			t.Errorf("event %s is on the server %d times, want once", id, n)
		}
	}
	serverEvents := len(h.Server(t).Events(serverdbtest.Where{}))
	asked := map[string]bool{}
	for _, l := range logs {
		for id := range l.asked {
			asked[id] = true
		}
	}
	for _, ev := range h.Server(t).Events(serverdbtest.Where{}) {
		if id := ev.EventID; !sent[id] && !asked[id] {
			t.Errorf("the server has event %s that no desk sent", id)
		}
	}

	// The figures (docs/deploy.md, docs/reliability.md).
	sort.Slice(records, func(a, b int) bool { return records[a].start.Before(records[b].start) })
	online, aloneRedeemed, aloneRefused := 0, 0, 0
	for _, r := range records {
		switch {
		case r.online:
			online++
		case r.outcome == app.OutcomeRedeemed:
			aloneRedeemed++
		default:
			aloneRefused++
		}
	}
	var gaps []string
	for k := range kills {
		kr := &kills[k]
		for _, r := range records {
			switch {
			case r.online && r.outcome == app.OutcomeRedeemed && r.end.Before(kr.stalled) && kr.stalled.Sub(r.end) < time.Second:
				kr.atRisk++
			case r.online && r.end.After(kr.stalled) && r.end.Before(kr.killing):
				kr.inStall++
			case r.online && r.start.After(kr.killed) && kr.firstOnline.IsZero():
				kr.firstOnline = r.end
			}
		}
		if kr.firstOnline.IsZero() {
			t.Errorf("kill %d: no scan was answered online after the promotion (the server's pool did not reconnect)", k+1)
			continue
		}
		for _, r := range records {
			if !r.online && !r.start.Before(kr.stalled) && r.start.Before(kr.firstOnline) {
				kr.offline++
				if r.outcome == app.OutcomeRedeemed {
					kr.offlineRedeemed++
				}
			}
		}
		gaps = append(gaps, fmt.Sprintf("kill %d (after %d scans): gap %v from the stall (kill at +%v, promotion at +%v); %d scans decided at the desks in the gap (%d redeemed); "+
			"%d answered online during the stall, %d online redemptions in the second before it",
			k+1, kr.scans, kr.firstOnline.Sub(kr.stalled).Round(time.Millisecond), kr.killing.Sub(kr.stalled).Round(time.Millisecond),
			kr.promoting.Sub(kr.stalled).Round(time.Millisecond), kr.offline, kr.offlineRedeemed, kr.inStall, kr.atRisk))
	}
	t.Logf("%d desks, %d scans of %d labels (%d twice), %d kills, %v in all\n%s\n"+
		"scans: %d answered online (%d redeemed, %d of them missing on the new primary); %d decided at the desks: %d redeemed, %d refused as used there\n"+
		"%d labels handed over twice, %d conflicts on the server; %d outbox events and %d events on the server, each once",
		cfg.desks, len(records), cfg.labels+1, cfg.twice, cfg.kills, time.Since(began).Round(100*time.Millisecond), strings.Join(gaps, "\n"),
		online, onlineRedeemed, missing, aloneRedeemed+aloneRefused, aloneRedeemed, aloneRefused, doubles, nConflicts, outboxed, serverEvents)
}

// onlineAfter reports whether a scan begun after t was answered online.
func onlineAfter(mu *sync.Mutex, records *[]scanRecord, t time.Time) bool {
	mu.Lock()
	defer mu.Unlock()
	for _, r := range *records {
		if r.online && r.start.After(t) {
			return true
		}
	}
	return false
}
