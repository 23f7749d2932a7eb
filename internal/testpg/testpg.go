// Package testpg starts a throwaway PostgreSQL cluster on a loopback port for
// tests (Debian's postgresql package; initdb runs as the postgres user when
// the tests run as root) and hands each test a fresh database; for failover
// tests, StartReplicated starts a primary with a synchronous standby.
package testpg

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver
)

// testPostgres is a throwaway PostgreSQL cluster on a loopback port, started
// on first use by the tests that need it and stopped when they end.
var cluster struct {
	once sync.Once
	dir  string
	port int
	ctl  string
	err  error
	n    atomic.Int32
}

func pgBin(name string) string {
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/" + name)
	if len(matches) == 0 {
		return ""
	}
	return matches[len(matches)-1]
}

func start() error {
	initdb, ctl := pgBin("initdb"), pgBin("pg_ctl")
	if initdb == "" {
		return fmt.Errorf("PostgreSQL is not installed: run 'make deps' (Debian package postgresql)")
	}
	dir, err := os.MkdirTemp("", "qrdesk-pg-")
	if err != nil {
		return err
	}
	cluster.dir, cluster.ctl = dir, ctl
	run := func(args ...string) error { return runAsPostgres(dir, args...) }
	if cluster.port, err = freePort(); err != nil {
		return err
	}
	data := filepath.Join(dir, "data")
	if err := run(initdb, "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C.UTF-8"); err != nil {
		return err
	}
	// Tests run without fsync (speed); benchmarks set QRDESK_PG_DURABLE=1 to
	// measure with fsync and synchronous_commit on, as in production.
	durability := "-c fsync=off"
	if os.Getenv("QRDESK_PG_DURABLE") == "1" {
		durability = "-c fsync=on -c synchronous_commit=on"
	}
	opts := fmt.Sprintf("-p %d -c listen_addresses=127.0.0.1 -k %s %s", cluster.port, dir, durability)
	return run(ctl, "-D", data, "-o", opts, "-w", "-l", filepath.Join(dir, "log"), "start")
}

// runAsPostgres runs a PostgreSQL program, as the postgres user when the
// tests run as root (initdb and the server refuse root); dir, the cluster's
// folder, is handed to that user first.
func runAsPostgres(dir string, args ...string) error {
	cmd := exec.Command(args[0], args[1:]...)
	if os.Geteuid() == 0 {
		pg, err := user.Lookup("postgres")
		if err != nil {
			return err
		}
		uid, _ := strconv.Atoi(pg.Uid)
		gid, _ := strconv.Atoi(pg.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			return err
		}
		cmd = exec.Command("runuser", append([]string{"-u", "postgres", "--"}, args...)...)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %v\n%s", filepath.Base(args[0]), err, out)
	}
	return nil
}

// freePort returns a loopback TCP port nothing listens on now.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// Main runs a package's tests, stops the cluster if one was started, and
// exits with the tests' status: a package's TestMain, or its last line.
func Main(m *testing.M) {
	code := m.Run()
	Stop()
	os.Exit(code)
}

// Engines runs test against both engines of the server's database: once
// with dbPath giving a fresh SQLite file (server.db in the test's folder),
// once with it giving a fresh PostgreSQL database (URL).
func Engines(t *testing.T, test func(t *testing.T, dbPath func(testing.TB) string)) {
	t.Run("SQLite", func(t *testing.T) {
		test(t, func(t testing.TB) string { return filepath.Join(t.TempDir(), "server.db") })
	})
	t.Run("PostgreSQL", func(t *testing.T) { test(t, URL) })
}

// Stop stops the cluster, if one was started; call it from TestMain (Main
// does).
func Stop() {
	if cluster.dir == "" {
		return
	}
	cmd := exec.Command(cluster.ctl, "-D", filepath.Join(cluster.dir, "data"), "-m", "immediate", "stop")
	if os.Geteuid() == 0 {
		cmd = exec.Command("runuser", "-u", "postgres", "--", cluster.ctl, "-D", filepath.Join(cluster.dir, "data"), "-m", "immediate", "stop")
	}
	cmd.Run()
	os.RemoveAll(cluster.dir)
}

// URL starts the cluster if needed and returns a fresh, empty database for
// one test.
func URL(t testing.TB) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		// The clusters are Debian's PostgreSQL run as the postgres user; a
		// Windows test binary (under wine) cannot start one. A Windows desk
		// keeps its database in SQLite, whose half of each test still runs.
		t.Skip("PostgreSQL for tests runs on Linux only; the SQLite half runs on Windows")
	}
	cluster.once.Do(func() { cluster.err = start() })
	if cluster.err != nil {
		t.Fatal(cluster.err)
	}
	admin, err := sql.Open("pgx", fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", cluster.port))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	name := fmt.Sprintf("qrdesk_test_%d_%d", os.Getpid(), cluster.n.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", cluster.port, name)
}
