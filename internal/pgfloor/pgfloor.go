// Package pgfloor measures what PostgreSQL itself can do for online
// redemptions: pgbench, with one connection per desk, running the bare
// redemption transaction (the station's token lookup, the event's insert,
// the label's guarded UPDATE and the feed entry's insert) against the
// server's own tables and indexes. The server's redemptions a second over
// this floor, on the same cluster in the same run, is how close the server
// comes to the database it waits on (docs/performance.md).
package pgfloor

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver
)

// Script is one redemption as the server would make it without anything
// of its own: four statements in one transaction. Each client redeems
// its own labels in turn (n counts its transactions), as a desk sends
// one request at a time.
const Script = `\set n :n + 1
BEGIN;
SELECT id, name, site FROM stations WHERE token_hash = 'floor-' || CAST(:client_id AS TEXT) AND revoked_at = 0;
INSERT INTO events (event_id, station, kind, code, operator, at, received_at, decided_at, offline, outcome, detail)
	VALUES ('floor-' || CAST(:client_id AS TEXT) || '-' || CAST(:n AS TEXT), 'floor ' || CAST(:client_id AS TEXT), 'redeem',
		'F' || CAST(:client_id AS TEXT) || '-' || CAST(:n AS TEXT), 'op', 1, 1, 1, false, 'redeemed', '{"outcome":"redeemed"}');
UPDATE codes SET status = 'used', used_at = 1, used_station = 'floor ' || CAST(:client_id AS TEXT), used_operator = 'op',
		used_event = 'floor-' || CAST(:client_id AS TEXT) || '-' || CAST(:n AS TEXT)
	WHERE code = 'F' || CAST(:client_id AS TEXT) || '-' || CAST(:n AS TEXT) AND status = 'unused' AND (expire_at = 0 OR expire_at > 1);
INSERT INTO changes (kind, code, station, data, tag, site)
	VALUES ('redeem', 'F' || CAST(:client_id AS TEXT) || '-' || CAST(:n AS TEXT), 'floor ' || CAST(:client_id AS TEXT),
		'{"at":1,"operator":"op","status":"used"}', 'floor', 1);
END;
`

// Result is one pgbench run.
type Result struct {
	Clients      int
	Transactions int           // done, all clients together
	TPS          float64       // pgbench's, without the connections' set-up
	LatencyAvg   time.Duration // pgbench's mean per transaction
	Took         time.Duration // the whole pgbench process
}

// Bin finds pgbench: on PATH, else Debian's newest
// /usr/lib/postgresql/*/bin/pgbench.
func Bin() (string, error) {
	if p, err := exec.LookPath("pgbench"); err == nil {
		return p, nil
	}
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pgbench")
	if len(matches) == 0 {
		return "", fmt.Errorf("pgbench is not installed (Debian: package postgresql-client or postgresql)")
	}
	return matches[len(matches)-1], nil
}

// Prepare adds the floor's stations and perClient unused labels for each
// of clients to the database at url, which holds the server's schema
// (serverdb.Open made it) and nothing of the floor yet: a scratch database
// on the cluster being measured, never the deployment's.
func Prepare(ctx context.Context, url string, clients, perClient int) error {
	db, err := sql.Open("pgx", url)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `INSERT INTO stations (name, token_hash, created_at)
		SELECT 'floor ' || c, 'floor-' || c, 1 FROM generate_series(0, $1 - 1) c`, clients); err != nil {
		return fmt.Errorf("floor stations: %w", err)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO codes (code, random, issued_by, created_at)
		SELECT 'F' || c || '-' || n, md5('F' || c || '-' || n), 'floor ' || c, 1
		FROM generate_series(0, $1 - 1) c, generate_series(1, $2) n`, clients, perClient); err != nil {
		return fmt.Errorf("floor labels: %w", err)
	}
	_, err = db.ExecContext(ctx, `VACUUM ANALYZE codes`)
	return err
}

// Run runs Script with clients connections, each perClient transactions
// (at most what Prepare added), in the database at url.
func Run(ctx context.Context, url string, clients, perClient int) (Result, error) {
	bin, err := Bin()
	if err != nil {
		return Result{}, err
	}
	dir, err := os.MkdirTemp("", "qrdesk-floor-")
	if err != nil {
		return Result{}, err
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "redeem.sql")
	if err := os.WriteFile(script, []byte(Script), 0o600); err != nil {
		return Result{}, err
	}
	// Prepared statements, as the server's driver sends them; one thread
	// per core at most, so pgbench takes no more of the machine than it
	// needs.
	cmd := exec.CommandContext(ctx, bin, "--no-vacuum", "--protocol=prepared", "--client="+strconv.Itoa(clients),
		"--jobs=2", "--transactions="+strconv.Itoa(perClient), "--define=n=0", "--file="+script, url)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	took := time.Since(start)
	if err != nil {
		return Result{}, fmt.Errorf("pgbench: %v\n%s", err, out)
	}
	r, err := parse(string(out))
	r.Clients, r.Took = clients, took
	if err != nil {
		return r, err
	}
	// Every transaction must have redeemed a label: a floor whose UPDATE
	// found nothing would be a floor of less work.
	db, err := sql.Open("pgx", url)
	if err != nil {
		return r, err
	}
	defer db.Close()
	var used int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM codes WHERE status = 'used' AND used_event LIKE 'floor-%'`).Scan(&used); err != nil {
		return r, err
	}
	if used != r.Transactions {
		return r, fmt.Errorf("pgbench redeemed %d labels in %d transactions: run it on a database Prepare made, once", used, r.Transactions)
	}
	return r, nil
}

// Scratch creates the empty database name on the cluster of the database
// at dbURL (its role needs CREATEDB) and returns its URL and a function
// that drops it.
func Scratch(ctx context.Context, dbURL, name string) (string, func(), error) {
	u, err := url.Parse(dbURL)
	if err != nil {
		return "", nil, err
	}
	admin, err := sql.Open("pgx", dbURL)
	if err != nil {
		return "", nil, err
	}
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		admin.Close()
		return "", nil, fmt.Errorf("create the scratch database %s on the cluster of --db (its role needs CREATEDB): %w", name, err)
	}
	drop := func() {
		admin.ExecContext(context.WithoutCancel(ctx), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		admin.Close()
	}
	u.Path = "/" + name
	return u.String(), drop, nil
}

var (
	processedRE = regexp.MustCompile(`number of transactions actually processed: (\d+)`)
	failedRE    = regexp.MustCompile(`number of failed transactions: (\d+)`)
	latencyRE   = regexp.MustCompile(`latency average = ([0-9.]+) ms`)
	tpsRE       = regexp.MustCompile(`tps = ([0-9.]+)`)
)

// parse reads pgbench's summary.
func parse(out string) (Result, error) {
	var r Result
	m := processedRE.FindStringSubmatch(out)
	t := tpsRE.FindStringSubmatch(out)
	if m == nil || t == nil {
		return r, fmt.Errorf("pgbench printed no summary:\n%s", out)
	}
	if f := failedRE.FindStringSubmatch(out); f != nil && f[1] != "0" {
		return r, fmt.Errorf("pgbench: %s transactions failed:\n%s", f[1], out)
	}
	r.Transactions, _ = strconv.Atoi(m[1])
	r.TPS, _ = strconv.ParseFloat(t[1], 64)
	if l := latencyRE.FindStringSubmatch(out); l != nil {
		ms, _ := strconv.ParseFloat(l[1], 64)
		r.LatencyAvg = time.Duration(ms * float64(time.Millisecond))
	}
	return r, nil
}
