package server

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// stateCollector reads the database's state at each scrape: the feed
// position, conflicts, events waiting for a commit and the desks' last
// contact. A thousand desks are one row each and a few series in all: the
// ages go into a histogram, not a series per desk.
type stateCollector struct {
	src MetricsSource
	now func() time.Time
	m   *Metrics
}

// scrapeTimeout bounds the database reads of one scrape (Prometheus's own
// default timeout is 10 s).
const scrapeTimeout = 3 * time.Second

// lastSeenBuckets are the desks' last-seen ages: a minute, two (online), five, a
// quarter of an hour, an hour, four hours, a day, a week, thirty days
// (after which a desk no longer holds back the feed's compaction).
var lastSeenBuckets = []float64{60, 120, 300, 900, 3600, 4 * 3600, 86400, 7 * 86400, 30 * 86400}

var (
	descUp = prometheus.NewDesc("qrdesk_database_up",
		"1 when the last scrape could read the database, else 0.", nil, nil)
	descFeed = prometheus.NewDesc("qrdesk_feed_position",
		"The highest position of the change feed given to any desk.", nil, nil)
	descConflicts = prometheus.NewDesc("qrdesk_conflicts",
		"Conflicts in the database: labels redeemed at two desks while they could not both ask the server.", nil, nil)
	descWaiting = prometheus.NewDesc("qrdesk_events_waiting",
		"Events received by this process and waiting for the next commit (SQLite's group commit; always 0 on PostgreSQL).", nil, nil)
	descDesks = prometheus.NewDesc("qrdesk_desks",
		"Enrolled desks by state: online (heard from within 2 minutes), offline, never_seen, revoked.", []string{"state"}, nil)
	descLastSeen = prometheus.NewDesc("qrdesk_desk_last_seen_age_seconds",
		"How long ago each active desk was last heard from (a request to this process, or a feed read any server process stored).", nil, nil)
	descOutbox = prometheus.NewDesc("qrdesk_desk_outbox_events",
		"Events waiting in the active desks' outboxes (not yet accepted by the server), summed over each desk's latest report to this process.", nil, nil)
)

func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descUp, descFeed, descConflicts, descWaiting, descDesks, descLastSeen, descOutbox} {
		ch <- d
	}
}

func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	act, err := c.src.Activity(ctx)
	if err != nil {
		// The rest of the page still says what this process did; the
		// database's state is left out rather than reported as zeros.
		ch <- prometheus.MustNewConstMetric(descUp, prometheus.GaugeValue, 0)
		return
	}
	ch <- prometheus.MustNewConstMetric(descUp, prometheus.GaugeValue, 1)
	ch <- prometheus.MustNewConstMetric(descFeed, prometheus.GaugeValue, float64(act.FeedPosition))
	ch <- prometheus.MustNewConstMetric(descConflicts, prometheus.GaugeValue, float64(act.Conflicts))
	ch <- prometheus.MustNewConstMetric(descWaiting, prometheus.GaugeValue, float64(act.EventsWaiting))

	now := c.now().Unix()
	states := map[string]float64{"online": 0, "offline": 0, "never_seen": 0, "revoked": 0}
	buckets := make(map[float64]uint64, len(lastSeenBuckets))
	var seen uint64
	var sum, outbox float64
	for _, d := range act.Desks {
		if d.Revoked {
			states["revoked"]++
			continue
		}
		outbox += float64(c.m.deskOutbox(d.ID))
		last := max(d.FeedAckedAt, c.m.lastSeen(d.ID))
		if last == 0 {
			states["never_seen"]++
			continue
		}
		age := float64(max(now-last, 0))
		if age <= DeskOnlineWithin.Seconds() {
			states["online"]++
		} else {
			states["offline"]++
		}
		seen++
		sum += age
		for _, b := range lastSeenBuckets {
			if age <= b {
				buckets[b]++ // cumulative: every bucket at or above the age
			}
		}
	}
	for state, n := range states {
		ch <- prometheus.MustNewConstMetric(descDesks, prometheus.GaugeValue, n, state)
	}
	ch <- prometheus.MustNewConstHistogram(descLastSeen, seen, sum, buckets)
	ch <- prometheus.MustNewConstMetric(descOutbox, prometheus.GaugeValue, outbox)
}
