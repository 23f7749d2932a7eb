package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"qrdesk/central"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
	"qrdesk/server"
	"qrdesk/serverdb"
)

// feedPage is GET /v1/changes's answer.
type feedPage struct {
	Changes []protocol.Change
	Next    int64
}

// TestFeedTailUnderAStorm: desks redeem through two server processes on
// one database while followers read the feed from both, long polls and
// plain reads mixed. Every follower sees every change exactly once, in
// position order, its cursor never going back: the feed served from
// memory has no hole and repeats nothing, also for writes of the other
// process.
func TestFeedTailUnderAStorm(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		path := dbPath(t)
		h := centraltest.New(t, func(testing.TB) string { return path }, 300)
		token := h.Station(t, "Desk 1", "A")
		// A second server process on the same database.
		db2, err := serverdb.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db2.Close() })
		api2 := &server.API{Store: db2, Log: slog.New(slog.DiscardHandler), Now: func() time.Time { return h.Now }}
		srv2 := httptest.NewServer(api2.Handler())
		t.Cleanup(srv2.Close)
		urls := []string{h.URL, srv2.URL}

		const followers = 6
		want := 2 * len(h.Codes) // each code's upload and its redemption
		seen := make([]map[int64]protocol.Change, followers)
		var wg sync.WaitGroup
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		for f := 0; f < followers; f++ {
			seen[f] = map[int64]protocol.Change{}
			wg.Add(1)
			go func() {
				defer wg.Done()
				var cursor int64
				for i := 0; len(seen[f]) < want && ctx.Err() == nil; i++ {
					wait := (f + i) % 2 // long polls and plain reads
					var p feedPage
					if st := h.CallURL(t, urls[(f+i)%2], "GET", fmt.Sprintf("/v1/changes?after=%d&wait=%d", cursor, wait), token, h.Ring, nil, &p); st != 200 {
						t.Errorf("follower %d: status %d", f, st)
						return
					}
					for _, ch := range p.Changes {
						if ch.Seq <= cursor {
							t.Errorf("follower %d: position %d after cursor %d", f, ch.Seq, cursor)
							return
						}
						if _, dup := seen[f][ch.Seq]; dup {
							t.Errorf("follower %d: position %d twice", f, ch.Seq)
						}
						seen[f][ch.Seq] = ch
						cursor = ch.Seq
					}
					if p.Next < cursor {
						t.Errorf("follower %d: next %d below cursor %d", f, p.Next, cursor)
						return
					}
				}
			}()
		}
		upload := func(codes []string) {
			var list []map[string]any
			for _, c := range codes {
				list = append(list, map[string]any{"code": c, "expire_at": 0, "created_at": h.Now.Unix() - 60})
			}
			h.CallURL(t, urls[len(codes)%2], "POST", "/v1/batches", token, h.Ring, map[string]any{"codes": list}, nil)
		}
		// Codes arrive in small batches while the redemptions run.
		for i := 0; i < len(h.Codes); i += 25 {
			upload(h.Codes[i : i+25])
		}
		var writers sync.WaitGroup
		for w := 0; w < 12; w++ {
			writers.Add(1)
			go func() {
				defer writers.Done()
				for i := w; i < len(h.Codes); i += 12 {
					var r protocol.Result
					h.CallURL(t, urls[i%2], "POST", "/v1/redeem", token, h.Ring, protocol.Event{EventID: fmt.Sprintf("storm-%04d", i), Code: h.Codes[i], Operator: "op", At: 1}, &r)
					if r.Outcome != protocol.OutcomeRedeemed {
						t.Errorf("%s: %+v", h.Codes[i], r)
					}
				}
			}()
		}
		writers.Wait()
		wg.Wait()
		for f := range seen {
			redeemed := map[string]bool{}
			for _, ch := range seen[f] {
				if ch.Kind == "redeem" {
					redeemed[ch.Code] = true
				}
			}
			if len(seen[f]) != want || len(redeemed) != len(h.Codes) {
				t.Errorf("follower %d saw %d changes (want %d), %d redemptions (want %d)", f, len(seen[f]), want, len(redeemed), len(h.Codes))
			}
		}
	})
}

// TestFeedReadSeesEveryEarlierWrite: a plain read of the feed holds every
// change committed before it was asked, whichever server process took
// the write; the memory of the feed never answers from before it.
func TestFeedReadSeesEveryEarlierWrite(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		path := dbPath(t)
		h := centraltest.New(t, func(testing.TB) string { return path }, 20)
		token := h.Station(t, "Desk 1", "A")
		h.Upload(t, token)
		db2, err := serverdb.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db2.Close() })
		srv2 := httptest.NewServer((&server.API{Store: db2, Log: slog.New(slog.DiscardHandler), Now: func() time.Time { return h.Now }}).Handler())
		t.Cleanup(srv2.Close)
		var p feedPage
		h.CallURL(t, srv2.URL, "GET", "/v1/changes?after=0", token, h.Ring, nil, &p) // both tails are warm
		h.CallURL(t, h.URL, "GET", "/v1/changes?after=0", token, h.Ring, nil, &p)
		cursor := p.Next
		for i, code := range h.Codes {
			var r protocol.Result
			if st := h.CallURL(t, []string{h.URL, srv2.URL}[i%2], "POST", "/v1/redeem", token, h.Ring, protocol.Event{EventID: fmt.Sprintf("seen-%04d", i), Code: code, Operator: "op", At: 1}, &r); st != 200 {
				t.Fatalf("redeem: status %d", st)
			}
			if r.Outcome != protocol.OutcomeRedeemed {
				t.Fatalf("%s: %+v", code, r)
			}
			p = feedPage{}
			h.CallURL(t, []string{srv2.URL, h.URL}[i%2], "GET", fmt.Sprintf("/v1/changes?after=%d", cursor), token, h.Ring, nil, &p)
			if len(p.Changes) != 1 || p.Changes[0].Code != code || p.Changes[0].Kind != "redeem" {
				got, _ := json.Marshal(p)
				t.Fatalf("read after redeeming %s through the other process: %s", code, got)
			}
			cursor = p.Next
		}
	})
}

// TestFeedReadAfterAFailedRefresh (hostile pass on the feed from memory): a
// read waits while another desk's request refreshes the tail; that refresh
// fails (the desk hung up, or the database hiccuped). The waiting read
// must not take the failed refresh for one that saw every change committed
// before it arrived: it answered from a stale tail, a plain read ended
// short of a redemption committed before it was asked, and the desk,
// stopping after a short page, took itself for up to date.
func TestFeedReadAfterAFailedRefresh(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 3)
		token := h.Station(t, "Desk 1", "A")
		h.Upload(t, token)
		ctx := context.Background()
		if _, _, _, err := h.API.TailAnswerForTest(ctx, time.Now(), 0, 1000); err != nil { // the tail is warm
			t.Fatal(err)
		}
		var p feedPage
		h.Call(t, "GET", "/v1/changes?after=0", token, h.Ring, nil, &p)
		var r protocol.Result
		if st := h.Call(t, "POST", "/v1/redeem", token, h.Ring, protocol.Event{EventID: "stale-0001", Code: h.Codes[0], Operator: "op", At: 1}, &r); st != 200 || r.Outcome != protocol.OutcomeRedeemed {
			t.Fatalf("redeem: %d %+v", st, r)
		}
		arrived := time.Now() // a desk asks, and waits for the refresh under way
		hungUp, cancel := context.WithCancel(ctx)
		cancel()
		if _, _, _, err := h.API.TailAnswerForTest(hungUp, time.Now(), p.Next, 1000); err == nil {
			t.Fatal("the refresh of a request that hung up succeeded")
		}
		body, n, ok, err := h.API.TailAnswerForTest(ctx, arrived, p.Next, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if ok && n != 1 {
			t.Fatalf("a read asked after the redemption was answered %s from a refresh that failed", body)
		}

		// The database fails a refresh: the reads that waited for it get
		// its error, never the stale tail as an answer.
		flaky := &failingFeed{Store: h.DB}
		api := &server.API{Store: flaky, Log: slog.New(slog.DiscardHandler), Now: func() time.Time { return h.Now }}
		api.Handler()
		if _, _, _, err := api.TailAnswerForTest(ctx, time.Now(), 0, 1000); err != nil {
			t.Fatal(err)
		}
		if st := h.Call(t, "POST", "/v1/redeem", token, h.Ring, protocol.Event{EventID: "stale-0002", Code: h.Codes[1], Operator: "op", At: 1}, &r); st != 200 || r.Outcome != protocol.OutcomeRedeemed {
			t.Fatalf("redeem: %d %+v", st, r)
		}
		arrived = time.Now()
		flaky.fail.Store(true)
		if _, _, _, err := api.TailAnswerForTest(ctx, time.Now(), p.Next+1, 1000); err == nil {
			t.Fatal("a refresh succeeded on a database that fails")
		}
		flaky.fail.Store(false) // (the waiting read must not need to find out alone)
		cursor := p.Next + 1    // after the first redemption, where this process's tail begins
		if body, _, _, err := api.TailAnswerForTest(ctx, arrived, cursor, 1000); err == nil {
			t.Fatalf("a read that waited for a refresh the database failed was answered %s", body)
		}
		if _, n, ok, err := api.TailAnswerForTest(ctx, time.Now(), cursor, 1000); err != nil || !ok || n != 1 {
			t.Fatalf("a read after the database came back: %d changes, %v, %v", n, ok, err)
		}
	})
}

// failingFeed is a store whose feed reads fail while fail is set.
type failingFeed struct {
	central.Store
	fail atomic.Bool
}

func (f *failingFeed) Changes(ctx context.Context, after int64, limit int) ([]protocol.Change, error) {
	if f.fail.Load() {
		return nil, errors.New("the database does not answer")
	}
	return f.Store.Changes(ctx, after, limit)
}
