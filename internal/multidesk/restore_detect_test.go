package multidesk_test

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/deskclient"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
	"qrdesk/server"
	"qrdesk/serverdb"
)

// restorable is a server whose database can be backed up and restored
// while the desks keep its address: a SQLite file copy (VACUUM INTO), or a
// PostgreSQL copy-database (CREATE DATABASE … TEMPLATE). A restore starts a
// new server process on the copy, as an administrator would.
type restorable struct {
	*centraltest.Harness
	t       *testing.T
	pg      bool
	dir     string
	handler atomic.Pointer[http.Handler]
	copies  int
	cur     string          // the served database's path
	kinds   []protocol.Kind // the kinds the serving API knows (nil: all)
	// refuseOldDesks: the server runs with the roll-out window closed
	// (serve --old-desks refuse).
	refuseOldDesks bool
	// before, when set, runs before each request is served (a restore at
	// the worst moment).
	before func(r *http.Request)
}

func newRestorable(t *testing.T, dbPath func(t testing.TB) string) *restorable {
	t.Helper()
	path := dbPath(t)
	g := &restorable{t: t, pg: strings.HasPrefix(path, "postgres"), dir: t.TempDir()}
	g.Harness = &centraltest.Harness{Now: centraltest.TestNow}
	keys, err := app.LoadKeys(filepath.Join(g.dir, "qrdesk.key"), true)
	if err != nil {
		t.Fatal(err)
	}
	g.Keys, g.Ring = keys, keys.RingID()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if g.before != nil {
			g.before(r)
		}
		(*g.handler.Load()).ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	g.URL = srv.URL
	g.open(path)
	t.Cleanup(func() { g.DB.Close() })
	return g
}

// open serves the database at path with a new server (a restart).
func (g *restorable) open(path string) {
	g.t.Helper()
	db, err := serverdb.Open(context.Background(), path)
	if err != nil {
		g.t.Fatal(err)
	}
	g.DB, g.cur = db, path
	g.serve()
}

// serve puts a new API over the database: a restart of the server, e.g.
// after an upgrade (kinds).
func (g *restorable) serve() {
	now := func() time.Time { return g.Now }
	g.API = &server.API{Store: g.DB, Log: slog.New(slog.DiscardHandler), Now: now, Kinds: g.kinds}
	g.API.SetOldDesks(!g.refuseOldDesks)
	h := g.API.Handler()
	g.handler.Store(&h)
}

// path returns where the database of name is (a file, or a database of
// the same PostgreSQL cluster).
func (g *restorable) path(name string) string {
	if !g.pg {
		return filepath.Join(g.dir, name+".DB")
	}
	u, _ := url.Parse(g.cur)
	u.Path = "/" + strings.TrimPrefix(u.Path, "/") + "_" + name
	return u.String()
}

// copyDB copies the served database to a new one named name and returns
// its path; on PostgreSQL the server is stopped for the copy (a template
// has no other sessions) and started again.
func (g *restorable) copyDB(name string) string {
	g.t.Helper()
	to := g.path(name)
	if !g.pg {
		raw, err := sql.Open("sqlite", g.cur)
		if err != nil {
			g.t.Fatal(err)
		}
		defer raw.Close()
		if _, err := raw.Exec(`VACUUM INTO ?`, to); err != nil {
			g.t.Fatal(err)
		}
		return to
	}
	from := g.cur
	g.DB.Close()
	u, _ := url.Parse(from)
	src := strings.TrimPrefix(u.Path, "/")
	u.Path = "/postgres"
	admin, err := sql.Open("pgx", u.String())
	if err != nil {
		g.t.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.Exec(fmt.Sprintf(`CREATE DATABASE %s TEMPLATE %s`, src+"_"+name, src)); err != nil {
		g.t.Fatal(err)
	}
	g.open(from)
	return to
}

// backup takes a backup of the server's database.
func (g *restorable) backup() string {
	g.copies++
	return g.copyDB(fmt.Sprintf("backup%d", g.copies))
}

// restore stops the server and starts it on a copy of the backup.
func (g *restorable) restore(backup string) {
	g.t.Helper()
	g.copies++
	name := fmt.Sprintf("restored%d", g.copies)
	old := g.DB
	if !g.pg {
		raw, err := sql.Open("sqlite", backup)
		if err != nil {
			g.t.Fatal(err)
		}
		defer raw.Close()
		if _, err := raw.Exec(`VACUUM INTO ?`, g.path(name)); err != nil {
			g.t.Fatal(err)
		}
		old.Close()
		g.open(g.path(name))
		return
	}
	old.Close()
	u, _ := url.Parse(backup)
	src := strings.TrimPrefix(u.Path, "/")
	u.Path = "/postgres"
	admin, err := sql.Open("pgx", u.String())
	if err != nil {
		g.t.Fatal(err)
	}
	defer admin.Close()
	cur, _ := url.Parse(g.cur)
	base := strings.TrimPrefix(cur.Path, "/")
	if i := strings.Index(base, "_backup"); i >= 0 {
		base = base[:i]
	}
	if i := strings.Index(base, "_restored"); i >= 0 {
		base = base[:i]
	}
	if _, err := admin.Exec(fmt.Sprintf(`CREATE DATABASE %s TEMPLATE %s`, base+"_"+name, src)); err != nil {
		g.t.Fatal(err)
	}
	cur.Path = "/" + base + "_" + name
	g.open(cur.String())
}

// deskAt enrols a station and returns its desk, which counts the times it
// started over (restarts).
func (g *restorable) deskAt(t *testing.T, name, letter string) *watchedDesk {
	t.Helper()
	d := &watchedDesk{Desk: g.Desk(t, name, letter, g.Station(t, name, letter))}
	d.Svc.Log = slog.New(&d.log)
	return d
}

// watchedDesk is a desk whose log is kept: it says when the desk started
// over because the server lost history.
type watchedDesk struct {
	*centraltest.Desk
	log countingHandler
}

func (d *watchedDesk) restarts() int { return int(d.log.startedOver.Load()) }

// countingHandler counts the log records of a desk starting over.
type countingHandler struct {
	startedOver atomic.Int64
	mu          sync.Mutex
	messages    []string
}

func (h *countingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *countingHandler) Handle(_ context.Context, r slog.Record) error {
	if strings.Contains(r.Message, "starting over") {
		h.startedOver.Add(1)
		h.mu.Lock()
		h.messages = append(h.messages, r.Message)
		h.mu.Unlock()
	}
	return nil
}
func (h *countingHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *countingHandler) WithGroup(string) slog.Handler      { return h }

// TestRestoreBehindCursorLosesNoRedemption is issue 17's item 2 as
// reported: the server is restored from a backup; desk A's online
// redemption of X, answered after that backup, is gone. Before A syncs,
// desk B uploads a batch, so the feed head passes A's cursor and A is
// never told feed_reset. A's sync must still find that the server lost its
// redemption (the station's write counter is below the highest number A
// was given) and send it again, so desk C's online redemption of X is
// refused as already used.
func TestRestoreBehindCursorLosesNoRedemption(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		g := newRestorable(t, dbPath)
		a, b, c := g.deskAt(t, "Desk A", "A"), g.deskAt(t, "Desk B", "B"), g.deskAt(t, "Desk C", "C")
		codes := a.Issue(t, 3)
		for _, d := range []*watchedDesk{a, b, c} {
			d.Sync(t)
		}
		backup := g.backup()
		x := codes[0]
		if v := a.Redeem(t, x, "li"); v.Outcome != app.OutcomeRedeemed || a.Count(t, `SELECT count(*) FROM outbox WHERE state = 'pending'`) != 0 {
			t.Fatalf("desk A, online: %+v", v)
		}
		a.Sync(t) // A's cursor passes its own redemption

		g.restore(backup)
		b.Issue(t, 5)
		b.Sync(t) // the feed head passes A's cursor again
		a.Sync(t)
		if v := c.Redeem(t, x, "wang"); v.Outcome != app.OutcomeAlreadyUsed {
			t.Fatalf("desk C redeemed %s online, which desk A had handed over: %s, want already_used", x, v.Outcome)
		}
		if status, station := g.Server(t).StatusAndStation(x); status != "used" || station != "Desk A" {
			t.Fatalf("after desk A's sync the restored server has %s %s at %q, want used at Desk A", x, status, station)
		}
		if a.restarts() != 1 {
			t.Errorf("desk A started over %d times, want 1", a.restarts())
		}
		if b.restarts() != 0 || c.restarts() != 0 {
			t.Errorf("desks B, C started over %d, %d times: they lost nothing", b.restarts(), c.restarts())
		}
	})
}

// TestRestoreWithoutNewWrites: restored, and nothing written since. Desk A's
// next sync finds at once that the server lost what it had confirmed (an
// online redemption, an offline one, a batch) and sends it all again in
// the same sync: no sync passes with an acknowledged redemption missing.
func TestRestoreWithoutNewWrites(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		g := newRestorable(t, dbPath)
		a, b := g.deskAt(t, "Desk A", "A"), g.deskAt(t, "Desk B", "B")
		codes := a.Issue(t, 3)
		a.Sync(t)
		b.Sync(t)
		backup := g.backup()
		if v := a.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A online: %+v", v)
		}
		later := a.Issue(t, 2)
		a.Sync(t)

		g.restore(backup)
		a.Sync(t)
		if status, _ := g.Server(t).StatusAndStation(codes[0]); status != "used" {
			t.Fatalf("after desk A's first sync the restored server has %s %s: the online redemption is lost", codes[0], status)
		}
		if n := g.Server(t).CountLabels(""); n != 5 {
			t.Fatalf("the restored server has %d codes after desk A's sync, want 5 (the batch sent again)", n)
		}
		b.Sync(t)
		if v := b.Redeem(t, codes[0], "wang"); v.Outcome != app.OutcomeAlreadyUsed {
			t.Fatalf("desk B: %+v, want already_used", v)
		}
		if v := b.Redeem(t, later[0], "wang"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk B, a label of the batch sent again: %+v", v)
		}
		a.Sync(t)
		h := *g.Harness
		sameState(t, &h, "A", a.Desk)
		sameState(t, &h, "B", b.Desk)
		if a.restarts() != 1 || b.restarts() != 0 {
			t.Errorf("started over: desk A %d times, desk B %d, want 1 and 0", a.restarts(), b.restarts())
		}
	})
}

// TestRestoreThenSameDeskWrites: restored, and desk A writes again before
// it syncs, so the station's counter climbs back to the highest number A
// holds (enrolment alone cannot tell). The answer to the new write gives a
// number A holds for its lost redemption: A starts over at its next sync
// and sends the lost redemption again.
func TestRestoreThenSameDeskWrites(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		g := newRestorable(t, dbPath)
		a, b := g.deskAt(t, "Desk A", "A"), g.deskAt(t, "Desk B", "B")
		codes := a.Issue(t, 4)
		a.Sync(t)
		b.Sync(t)
		backup := g.backup()
		if v := a.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A online: %+v", v)
		}
		a.Sync(t)

		g.restore(backup)
		if v := a.Redeem(t, codes[1], "li"); v.Outcome != app.OutcomeRedeemed || a.Count(t, `SELECT count(*) FROM outbox WHERE state = 'pending'`) != 0 {
			t.Fatalf("desk A, online after the restore: %+v", v)
		}
		a.Sync(t)
		if status, _ := g.Server(t).StatusAndStation(codes[0]); status != "used" {
			t.Fatalf("after desk A's sync the restored server has %s %s: the online redemption is lost", codes[0], status)
		}
		if v := b.Redeem(t, codes[0], "wang"); v.Outcome != app.OutcomeAlreadyUsed {
			t.Fatalf("desk B: %+v, want already_used", v)
		}
		// And after starting over A follows the restored server: the
		// numbers it gives now are new to A.
		if v := a.Redeem(t, codes[2], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A: %+v", v)
		}
		a.Sync(t)
		b.Sync(t)
		h := *g.Harness
		sameState(t, &h, "A", a.Desk)
		sameState(t, &h, "B", b.Desk)
		if a.restarts() != 1 || b.restarts() != 0 {
			t.Errorf("started over: desk A %d times, desk B %d, want 1 and 0", a.restarts(), b.restarts())
		}
	})
}

// TestNoFalseRestoreDetection: in normal operation a desk never takes its
// server for restored, with its online redemptions answered while its
// own syncs enrol (a number given after an enrolment read the counter),
// events sent offline, batches and another desk at work.
func TestNoFalseRestoreDetection(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		g := newRestorable(t, dbPath)
		a, b := g.deskAt(t, "Desk A", "A"), g.deskAt(t, "Desk B", "B")
		codes := a.Issue(t, 60)
		a.Sync(t)
		b.Sync(t)
		ctx := context.Background()
		var wg sync.WaitGroup
		errs := make(chan error, 100)
		for w := 0; w < 3; w++ {
			wg.Add(1)
			go func(w int) { // online redemptions at desk A
				defer wg.Done()
				for i := w; i < 40; i += 3 {
					if _, err := a.Svc.Redeem(ctx, codes[i], "li"); err != nil {
						errs <- err
					}
				}
			}(w)
		}
		wg.Add(2)
		go func() { // desk A's syncs meanwhile
			defer wg.Done()
			for i := 0; i < 8; i++ {
				if _, err := a.Svc.Sync(ctx); err != nil {
					errs <- err
				}
			}
		}()
		go func() { // desk B redeems and syncs
			defer wg.Done()
			for i := 40; i < 50; i++ {
				b.Svc.Redeem(ctx, codes[i], "wang")
				if _, err := b.Svc.Sync(ctx); err != nil {
					errs <- err
				}
			}
		}()
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		// Offline redemptions, a retried event and a new batch go too.
		g.Now = g.Now.Add(time.Minute)
		a.Issue(t, 3)
		a.Svc.Remote = deskclient.New("http://127.0.0.1:1", "x")
		for _, code := range codes[50:55] {
			a.Redeem(t, code, "li")
		}
		a.Svc.Remote = deskclient.New(g.URL, "qrd_test_Desk_A")
		a.Sync(t)
		a.Sync(t)
		b.Sync(t)
		if a.restarts() != 0 || b.restarts() != 0 {
			t.Fatalf("started over without a restore: desk A %d times %v, desk B %d times", a.restarts(), a.log.messages, b.restarts())
		}
		st, err := a.DB.ServerState(ctx)
		if err != nil || st.Lost || st.Highest == 0 {
			t.Fatalf("desk A's server state: %+v %v, want write numbers and nothing lost", st, err)
		}
		if n := centraltest.Count(t, g.DB, `SELECT writes FROM stations WHERE name = 'Desk A'`); int64(n) != st.Highest {
			t.Errorf("the server's counter for desk A is %d, the highest number desk A holds %d", n, st.Highest)
		}
	})
}
