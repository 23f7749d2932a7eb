package server

import (
	"context"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
)

// WatchReplica adds the read replica's figures to the metrics, read at
// each scrape (ReplicaStatus: a few cheap queries on both databases).
func (m *Metrics) WatchReplica(r ReplicaReporter) {
	if m == nil || r == nil {
		return
	}
	m.reg.MustRegister(&replicaCollector{r: r})
}

var (
	descReplicaUp = prometheus.NewDesc("qrdesk_replica_up",
		"1 when the read replica answered at this scrape, else 0.", nil, nil)
	descReplicaServing = prometheus.NewDesc("qrdesk_replica_serving",
		"1 when the desks' feed reads go to the read replica (up and within --replica-max-lag), 0 when they go to the primary.", nil, nil)
	descReplicaLag = prometheus.NewDesc("qrdesk_replica_lag_seconds",
		"How long the read replica has lacked feed positions the primary had placed (0: it has every one).", nil, nil)
	descReplicaBehind = prometheus.NewDesc("qrdesk_replica_behind_positions",
		"Feed positions the primary has placed that the read replica has not applied.", nil, nil)
	descReplicaBytes = prometheus.NewDesc("qrdesk_replica_lag_bytes",
		"WAL the primary wrote that the read replica has not replayed (pg_current_wal_lsn on the primary minus pg_last_wal_replay_lsn on the replica).", nil, nil)
	descReplicaPaused = prometheus.NewDesc("qrdesk_replica_replay_paused",
		"1 when replay is paused on the read replica (pg_wal_replay_pause).", nil, nil)
	descFeedReads = prometheus.NewDesc("qrdesk_feed_reads_total",
		"Feed and snapshot reads of the database by this process with a read replica, by where they were served (replica, reason serving; or primary) and why the primary (down, lagging, behind: a snapshot page newer than the replica, older_desk: a later snapshot page from a desk that does not say its position).", []string{"served_by", "reason"}, nil)
	descReplicaWaits = prometheus.NewDesc("qrdesk_replica_behind_waits_total",
		"Feed reads answered with no changes because the desk's position was beyond what the read replica had applied (the desk waits).", nil, nil)
)

type replicaCollector struct{ r ReplicaReporter }

func (c *replicaCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descReplicaUp, descReplicaServing, descReplicaLag, descReplicaBehind, descReplicaBytes, descReplicaPaused, descFeedReads, descReplicaWaits} {
		ch <- d
	}
}

func (c *replicaCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	st := c.r.ReplicaStatus(ctx)
	b := func(v bool) float64 {
		if v {
			return 1
		}
		return 0
	}
	ch <- prometheus.MustNewConstMetric(descReplicaUp, prometheus.GaugeValue, b(st.Up))
	ch <- prometheus.MustNewConstMetric(descReplicaServing, prometheus.GaugeValue, b(st.Serving))
	ch <- prometheus.MustNewConstMetric(descReplicaLag, prometheus.GaugeValue, st.LagSeconds)
	ch <- prometheus.MustNewConstMetric(descReplicaBehind, prometheus.GaugeValue, float64(st.BehindPositions))
	if st.LagBytes >= 0 {
		ch <- prometheus.MustNewConstMetric(descReplicaBytes, prometheus.GaugeValue, float64(st.LagBytes))
	}
	ch <- prometheus.MustNewConstMetric(descReplicaPaused, prometheus.GaugeValue, b(st.ReplayPaused))
	for _, where := range []string{"replica", "primary_down", "primary_lagging", "primary_behind", "primary_older_desk"} {
		servedBy, reason, found := strings.Cut(where, "_")
		if !found {
			reason = "serving"
		}
		ch <- prometheus.MustNewConstMetric(descFeedReads, prometheus.CounterValue, float64(st.Reads[where]), servedBy, reason)
	}
	ch <- prometheus.MustNewConstMetric(descReplicaWaits, prometheus.CounterValue, float64(st.Behind))
}
