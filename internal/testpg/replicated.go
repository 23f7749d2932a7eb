package testpg

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// Pair is a PostgreSQL primary and a streaming standby on loopback. Made
// by StartReplicated, replication is synchronous: the primary runs
// synchronous_commit=on and names the standby in
// synchronous_standby_names, so a commit returns only once the standby has
// flushed it. Made by StartReadReplica, it is asynchronous, as a read
// replica is. Nodes keep their port for the whole test; their roles change
// with Promote and Rejoin. Methods are safe to call from several
// goroutines.
type Pair struct {
	dir string
	ctl string
	// async: the standby is a read replica (asynchronous, fsync off, as
	// the tests' other clusters); else synchronous with fsync on.
	async bool

	mu      sync.Mutex
	nodes   [2]*pairNode
	primary int   // index of the node that is (or last was) the primary
	stalled []int // WAL senders frozen by StallReplication
	dbs     int   // databases made by NewDatabase
}

type pairNode struct {
	name string // cluster_name, and so the standby's application_name
	port int
	data string
	up   bool
}

// PairDB is the database StartReplicated creates on the pair.
const PairDB = "qrdesk"

// StartReplicated starts a primary (node1) and a synchronous streaming
// standby of it (node2), made by pg_basebackup, with the database PairDB;
// both are stopped and removed when the test ends. Every node runs with
// fsync on: this pair is for durability tests.
func StartReplicated(t testing.TB) *Pair {
	t.Helper()
	return startPair(t, false)
}

// StartReadReplica starts a primary (node1) and an asynchronous streaming
// standby of it (node2, hot_standby: it answers reads), made by
// pg_basebackup -R as a read replica is, with the database PairDB; both
// are stopped and removed when the test ends. fsync is off, as in the
// tests' other clusters. PauseReplay and ResumeReplay hold the standby
// back.
func StartReadReplica(t testing.TB) *Pair {
	t.Helper()
	return startPair(t, true)
}

func startPair(t testing.TB, async bool) *Pair {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("PostgreSQL for tests runs on Linux only")
	}
	initdb, ctl := pgBin("initdb"), pgBin("pg_ctl")
	if initdb == "" || pgBin("pg_basebackup") == "" {
		t.Fatal("PostgreSQL is not installed (initdb, pg_ctl and pg_basebackup of Debian's postgresql package are needed): run 'make deps'")
	}
	dir, err := os.MkdirTemp("", "qrdesk-pgpair-")
	if err != nil {
		t.Fatal(err)
	}
	p := &Pair{dir: dir, ctl: ctl, async: async}
	t.Cleanup(p.close)
	for i := range p.nodes {
		port, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("node%d", i+1)
		p.nodes[i] = &pairNode{name: name, port: port, data: filepath.Join(dir, name)}
	}
	first := p.nodes[0]
	initArgs := []string{initdb, "-D", first.data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C.UTF-8"}
	if async {
		initArgs = append(initArgs, "--no-sync") // fsync is off anyway: seconds saved on a busy disk
	}
	if err := runAsPostgres(dir, initArgs...); err != nil {
		t.Fatal(err)
	}
	if err := p.startNode(first); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := p.exec(ctx, first, "CREATE DATABASE "+PairDB); err != nil {
		t.Fatal(err)
	}
	if err := p.addStandby(ctx, 1); err != nil {
		t.Fatal(err)
	}
	return p
}

// URL is the multi-host address of the pair's database, as a client in
// production would use it: both nodes, and target_session_attrs=read-write
// so a connection is only ever made to the node that takes writes.
func (p *Pair) URL() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d,127.0.0.1:%d/%s?sslmode=disable&target_session_attrs=read-write&connect_timeout=2",
		p.nodes[0].port, p.nodes[1].port, PairDB)
}

// NodeURL is the address of one node's copy of the database.
func (p *Pair) NodeURL(port int) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", port, PairDB)
}

// NewDatabase creates a fresh database on the primary and returns its
// address on the primary and on the standby, once the standby has it.
func (p *Pair) NewDatabase(t testing.TB) (primaryURL, standbyURL string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p.mu.Lock()
	p.dbs++
	name := fmt.Sprintf("%s_%d", PairDB, p.dbs)
	primary, standby := p.nodes[p.primary], p.nodes[1-p.primary]
	p.mu.Unlock()
	if err := p.exec(ctx, primary, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	at := func(n *pairNode) string {
		return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", n.port, name)
	}
	for {
		db, err := sql.Open("pgx", at(standby))
		if err == nil {
			err = db.PingContext(ctx)
			db.Close()
		}
		if err == nil {
			return at(primary), at(standby)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the standby did not get database %s: %v", name, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Primary and Standby return the ports of the node that is (or last was)
// the primary and of the other one.
func (p *Pair) Primary() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.nodes[p.primary].port
}

func (p *Pair) Standby() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.nodes[1-p.primary].port
}

// KillPrimary stops the primary as a crash would (pg_ctl -m immediate: no
// checkpoint, every connection cut). WAL senders frozen by
// StallReplication are killed first, so what they held back is never sent.
func (p *Pair) KillPrimary() error {
	p.mu.Lock()
	n, stalled := p.nodes[p.primary], p.stalled
	p.stalled = nil
	p.mu.Unlock()
	for _, pid := range stalled {
		killProcess(pid)
	}
	return p.stopNode(n, "immediate")
}

// StallReplication freezes the primary's WAL senders (SIGSTOP), as a link
// to the standby that stalls: from then on the standby receives nothing.
// With synchronous replication a commit now waits for the standby and is
// not acknowledged; with asynchronous replication it would be, and be
// lost when the primary dies. Call KillPrimary next.
func (p *Pair) StallReplication(ctx context.Context) error {
	db, err := sql.Open("pgx", p.NodeURL(p.Primary()))
	if err != nil {
		return err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT pid FROM pg_stat_replication`)
	if err != nil {
		return err
	}
	defer rows.Close()
	var pids []int
	for rows.Next() {
		var pid int
		if err := rows.Scan(&pid); err != nil {
			return err
		}
		pids = append(pids, pid)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(pids) == 0 {
		return fmt.Errorf("the primary has no WAL sender: no standby is connected")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, pid := range pids {
		if err := freezeProcess(pid); err != nil {
			return fmt.Errorf("freezing WAL sender %d: %w", pid, err)
		}
		p.stalled = append(p.stalled, pid)
	}
	return nil
}

// StopStandby and StartStandby take the standby away (fast shutdown) and
// bring it back.
func (p *Pair) StopStandby() error {
	p.mu.Lock()
	n := p.nodes[1-p.primary]
	p.mu.Unlock()
	return p.stopNode(n, "fast")
}

func (p *Pair) StartStandby() error {
	p.mu.Lock()
	n := p.nodes[1-p.primary]
	p.mu.Unlock()
	return p.startNode(n)
}

// Promote makes the standby the primary (pg_ctl promote, which waits until
// it takes writes). It runs without a synchronous standby until Rejoin.
func (p *Pair) Promote() error {
	p.mu.Lock()
	n := p.nodes[1-p.primary]
	p.mu.Unlock()
	if err := runAsPostgres(p.dir, p.ctl, "-D", n.data, "-w", "-t", "60", "promote"); err != nil {
		return err
	}
	p.mu.Lock()
	p.primary = 1 - p.primary
	p.mu.Unlock()
	return nil
}

// Rejoin rebuilds the dead former primary as a synchronous standby of the
// new one: its data folder is replaced by a fresh base backup (what
// Patroni or repmgr do when pg_rewind is not set up), it is started, and
// the primary names it in synchronous_standby_names. Rejoin returns once
// the primary reports it as its synchronous standby.
func (p *Pair) Rejoin(ctx context.Context) error {
	p.mu.Lock()
	i := 1 - p.primary
	n := p.nodes[i]
	up := n.up
	p.mu.Unlock()
	if up {
		return fmt.Errorf("%s is still running: kill the primary and promote the standby first", n.name)
	}
	if err := os.RemoveAll(n.data); err != nil {
		return err
	}
	return p.addStandby(ctx, i)
}

// Replication describes the primary's synchronous replication as it
// reports it.
type Replication struct {
	SynchronousCommit     string // SHOW synchronous_commit
	SynchronousStandbys   string // SHOW synchronous_standby_names
	Standby, State, Flush string // pg_stat_replication: application_name, sync_state, flush_lsn
	InRecovery            bool   // pg_is_in_recovery() (false on a primary)
}

// Replication asks the primary.
func (p *Pair) Replication(ctx context.Context) (Replication, error) {
	var r Replication
	db, err := sql.Open("pgx", p.NodeURL(p.Primary()))
	if err != nil {
		return r, err
	}
	defer db.Close()
	if err := db.QueryRowContext(ctx, `SELECT current_setting('synchronous_commit'), current_setting('synchronous_standby_names'), pg_is_in_recovery()`).
		Scan(&r.SynchronousCommit, &r.SynchronousStandbys, &r.InRecovery); err != nil {
		return r, err
	}
	err = db.QueryRowContext(ctx, `SELECT application_name, sync_state, COALESCE(flush_lsn::text, '') FROM pg_stat_replication ORDER BY sync_state = 'sync' DESC LIMIT 1`).
		Scan(&r.Standby, &r.State, &r.Flush)
	if err == sql.ErrNoRows {
		err = nil
	}
	return r, err
}

// WaitSync waits until the primary reports its standby as synchronous.
func (p *Pair) WaitSync(ctx context.Context) error {
	for {
		r, err := p.Replication(ctx)
		if err == nil && r.State == "sync" {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the standby did not become synchronous (last: %+v, %v): %w", r, err, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// WaitStreaming waits until the primary reports a standby streaming its
// WAL (pg_stat_replication.state).
func (p *Pair) WaitStreaming(ctx context.Context) error {
	for {
		r, err := p.Replication(ctx)
		if err == nil && r.Standby != "" {
			db, err := sql.Open("pgx", p.NodeURL(p.Primary()))
			if err != nil {
				return err
			}
			var state string
			err = db.QueryRowContext(ctx, `SELECT state FROM pg_stat_replication WHERE application_name = $1`, r.Standby).Scan(&state)
			db.Close()
			if err == nil && state == "streaming" {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the standby did not start streaming (last: %+v, %v): %w", r, err, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// PauseReplay stops the standby applying the WAL it receives
// (pg_wal_replay_pause): it answers reads as of the moment replay stopped
// while the primary goes on. PauseReplay returns once replay has stopped.
func (p *Pair) PauseReplay(ctx context.Context) error {
	db, err := sql.Open("pgx", p.NodeURL(p.Standby()))
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `SELECT pg_wal_replay_pause()`); err != nil {
		return err
	}
	for {
		var state string
		if err := db.QueryRowContext(ctx, `SELECT pg_get_wal_replay_pause_state()`).Scan(&state); err != nil {
			return err
		}
		if state == "paused" {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("replay did not pause (%s): %w", state, ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// ResumeReplay lets the standby apply WAL again (pg_wal_replay_resume).
func (p *Pair) ResumeReplay(ctx context.Context) error {
	db, err := sql.Open("pgx", p.NodeURL(p.Standby()))
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.ExecContext(ctx, `SELECT pg_wal_replay_resume()`)
	return err
}

// addStandby makes node i a standby of the primary with a base backup,
// starts it and names it the synchronous standby. The primary's
// synchronous_standby_names is set after the backup (ALTER SYSTEM), so
// the standby's copy of the settings never names anyone: promoted, it
// takes writes at once instead of waiting for a standby it does not have.
func (p *Pair) addStandby(ctx context.Context, i int) error {
	p.mu.Lock()
	primary, n := p.nodes[p.primary], p.nodes[i]
	p.mu.Unlock()
	args := []string{pgBin("pg_basebackup"), "-h", "127.0.0.1", "-p", fmt.Sprint(primary.port), "-U", "postgres",
		"-D", n.data, "-R", "-X", "stream", "-c", "fast"}
	if p.async {
		args = append(args, "--no-sync")
	}
	if err := runAsPostgres(p.dir, args...); err != nil {
		return err
	}
	if err := p.startNode(n); err != nil {
		return err
	}
	if p.async {
		wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		return p.WaitStreaming(wctx)
	}
	if err := p.exec(ctx, primary, fmt.Sprintf("ALTER SYSTEM SET synchronous_standby_names = '%s'", n.name)); err != nil {
		return err
	}
	if err := p.exec(ctx, primary, "SELECT pg_reload_conf()"); err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return p.WaitSync(wctx)
}

func (p *Pair) startNode(n *pairNode) error {
	// synchronous_commit=on is the default; it is spelt out because the
	// guarantee rests on it. cluster_name becomes the standby's
	// application_name, which synchronous_standby_names refers to.
	durability := "-c fsync=on -c synchronous_commit=on"
	if p.async {
		durability = "-c fsync=off"
	}
	opts := strings.Join([]string{
		fmt.Sprintf("-p %d -c listen_addresses=127.0.0.1 -k %s", n.port, p.dir),
		"-c cluster_name=" + n.name,
		durability + " -c wal_level=replica -c max_wal_senders=4 -c hot_standby=on",
	}, " ")
	if err := runAsPostgres(p.dir, p.ctl, "-D", n.data, "-o", opts, "-w", "-t", "60", "-l", filepath.Join(p.dir, n.name+".log"), "start"); err != nil {
		return err
	}
	p.mu.Lock()
	n.up = true
	p.mu.Unlock()
	return nil
}

func (p *Pair) stopNode(n *pairNode, mode string) error {
	err := runAsPostgres(p.dir, p.ctl, "-D", n.data, "-m", mode, "-w", "stop")
	if err == nil {
		p.mu.Lock()
		n.up = false
		p.mu.Unlock()
	}
	return err
}

// exec runs one statement on a node's postgres database.
func (p *Pair) exec(ctx context.Context, n *pairNode, stmt string) error {
	db, err := sql.Open("pgx", fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", n.port))
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, stmt); err != nil {
		return fmt.Errorf("%s on %s: %w", stmt, n.name, err)
	}
	return nil
}

// close stops whatever runs and removes the folder.
func (p *Pair) close() {
	for _, pid := range p.stalled {
		killProcess(pid)
	}
	for _, n := range p.nodes {
		if n != nil && n.up {
			p.stopNode(n, "immediate")
		}
	}
	os.RemoveAll(p.dir)
}

// Log returns the server logs of both nodes (for a failing test).
func (p *Pair) Log() string {
	var b strings.Builder
	for _, n := range p.nodes {
		data, _ := os.ReadFile(filepath.Join(p.dir, n.name+".log"))
		fmt.Fprintf(&b, "--- %s (port %d)\n%s", n.name, n.port, data)
	}
	return b.String()
}
