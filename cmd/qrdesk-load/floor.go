package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"qrdesk/internal/pgfloor"
	"qrdesk/serverdb"
)

// floorPerDesk is how many redemptions each pgbench client makes: a few
// seconds' work at the floor's rate on a small machine. floorMaxClients
// caps the clients at one per desk up to 64: PostgreSQL's default
// max_connections is 100, and the server keeps up to 32 of them.
const (
	floorPerDesk    = 300
	floorMaxClients = 64
)

// floorReport is the PostgreSQL floor measured before the scans
// (--pgbench), and the server's online redemptions a second over it.
type floorReport struct {
	Clients      int     `json:"clients"`
	Transactions int     `json:"transactions"`
	TPS          float64 `json:"tps"`
	LatencyAvgMs float64 `json:"latency_avg_ms"`
	// Ratio is the online redemptions a second of the scanning window
	// over TPS: 1 means the server redeems as fast as PostgreSQL runs the
	// bare transaction.
	Ratio float64 `json:"ours_over_floor"`
}

// measureFloor runs the pgbench floor with one client per desk in a
// scratch database on the cluster of --db, with the server's schema, and
// drops it again: the deployment's own database is not touched.
func (l *load) measureFloor(ctx context.Context) (*floorReport, error) {
	name := "qrdesk_floor_" + strings.ToLower(l.runID)
	url, drop, err := pgfloor.Scratch(ctx, l.cfg.db, name)
	if err != nil {
		return nil, err
	}
	defer drop()
	db, err := serverdb.Open(ctx, url) // the server's tables and indexes
	if err != nil {
		return nil, fmt.Errorf("the floor's schema: %w", err)
	}
	db.Close()
	clients := min(len(l.desks), floorMaxClients)
	if err := pgfloor.Prepare(ctx, url, clients, floorPerDesk); err != nil {
		return nil, err
	}
	start := time.Now()
	r, err := pgfloor.Run(ctx, url, clients, floorPerDesk)
	if err != nil {
		return nil, err
	}
	l.log.Info("floor", "tps", r.TPS, "clients", clients, "took", time.Since(start).Round(time.Millisecond))
	return &floorReport{Clients: clients, Transactions: r.Transactions, TPS: round1(r.TPS), LatencyAvgMs: ms(r.LatencyAvg)}, nil
}
