package store

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// testPostgres is a throwaway PostgreSQL cluster on a loopback port, started
// on first use by the tests that need it and stopped when they end.
var testPostgres struct {
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

func startPostgres() error {
	initdb, ctl := pgBin("initdb"), pgBin("pg_ctl")
	if initdb == "" {
		return fmt.Errorf("PostgreSQL is not installed: run 'make deps' (Debian package postgresql)")
	}
	dir, err := os.MkdirTemp("", "qrdesk-pg-")
	if err != nil {
		return err
	}
	testPostgres.dir, testPostgres.ctl = dir, ctl
	run := func(args ...string) error {
		cmd := exec.Command(args[0], args[1:]...)
		if os.Geteuid() == 0 { // initdb refuses root: run as the postgres user
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
			return fmt.Errorf("%s: %v\n%s", args[0], err, out)
		}
		return nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	testPostgres.port = ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	data := filepath.Join(dir, "data")
	if err := run(initdb, "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C.UTF-8"); err != nil {
		return err
	}
	opts := fmt.Sprintf("-p %d -c listen_addresses=127.0.0.1 -k %s -c fsync=off", testPostgres.port, dir)
	return run(ctl, "-D", data, "-o", opts, "-w", "-l", filepath.Join(dir, "log"), "start")
}

func stopPostgres() {
	if testPostgres.dir == "" {
		return
	}
	cmd := exec.Command(testPostgres.ctl, "-D", filepath.Join(testPostgres.dir, "data"), "-m", "immediate", "stop")
	if os.Geteuid() == 0 {
		cmd = exec.Command("runuser", "-u", "postgres", "--", testPostgres.ctl, "-D", filepath.Join(testPostgres.dir, "data"), "-m", "immediate", "stop")
	}
	cmd.Run()
	os.RemoveAll(testPostgres.dir)
}

// postgresURL starts the cluster if needed and returns a fresh, empty
// database for one test.
func postgresURL(t testing.TB) string {
	t.Helper()
	testPostgres.once.Do(func() { testPostgres.err = startPostgres() })
	if testPostgres.err != nil {
		t.Fatal(testPostgres.err)
	}
	admin, err := sql.Open("pgx", fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", testPostgres.port))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	name := fmt.Sprintf("qrdesk_test_%d_%d", os.Getpid(), testPostgres.n.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", testPostgres.port, name)
}
