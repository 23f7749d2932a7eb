package server

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"qrdesk/protocol"
)

// stateCollector reads the database's state at each scrape: the feed
// position, conflicts, events waiting for a commit and the desks' last
// contact. A thousand desks are one row each and a few series in all: the
// ages go into a histogram, not a series per desk. Conflicts, desks by
// state and outboxes are by site (a few series per site; sites are few);
// the ages' histogram is not, so a chain of many sites stays a few
// thousand series.
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
// unseenOver are the silences qrdesk_desks_unseen counts desks by: a
// quarter of an hour (a desk's sync runs every few seconds), an hour, a
// day (a desk off over a closed day).
var unseenOver = []struct {
	label string
	over  time.Duration
}{{"15m", 15 * time.Minute}, {"1h", time.Hour}, {"24h", 24 * time.Hour}}

var lastSeenBuckets = []float64{60, 120, 300, 900, 3600, 4 * 3600, 86400, 7 * 86400, 30 * 86400}

var (
	descUp = prometheus.NewDesc("qrdesk_database_up",
		"1 when the last scrape could read the database, else 0.", nil, nil)
	descFeed = prometheus.NewDesc("qrdesk_feed_position",
		"The highest position of the change feed given to any desk.", nil, nil)
	descConflicts = prometheus.NewDesc("qrdesk_conflicts",
		"Conflicts in the database: labels redeemed at two desks while they could not both ask the server, by the site of the label.", []string{"site"}, nil)
	descWaiting = prometheus.NewDesc("qrdesk_events_waiting",
		"Events received by this process and waiting for the next commit (SQLite's group commit; always 0 on PostgreSQL).", nil, nil)
	descDesks = prometheus.NewDesc("qrdesk_desks",
		"Enrolled desks by state (online: heard from within 2 minutes, offline, never_seen, revoked) and site.", []string{"state", "site"}, nil)
	descLastSeen = prometheus.NewDesc("qrdesk_desk_last_seen_age_seconds",
		"How long ago each active desk was last heard from (a request to this process, or a feed read any server process stored).", nil, nil)
	descOldDesks = prometheus.NewDesc("qrdesk_desks_old_protocol",
		"Active desks whose latest request to this process spoke a protocol from before versions (a first release of qrdesk), by site: during a roll-out the server decides their online redemptions; upgrade qrdesk on each before ending the window (serve --old-desks refuse).", []string{"site"}, nil)
	descBackupOK = prometheus.NewDesc("qrdesk_backup_last_success_timestamp_seconds",
		"When the last backup of the database succeeded (qrdesk-server backup, the nightly timer), Unix seconds; 0: never.", nil, nil)
	descBackupFailed = prometheus.NewDesc("qrdesk_backup_last_failure_timestamp_seconds",
		"When a backup of the database last failed, Unix seconds; 0: never. Later than the last success: the latest backup failed.", nil, nil)
	descUnseen = prometheus.NewDesc("qrdesk_desks_unseen",
		"Active desks not heard from for longer than over (15m, 1h, 24h), by site; desks never seen are qrdesk_desks{state=\"never_seen\"}.", []string{"over", "site"}, nil)
	descOldest = prometheus.NewDesc("qrdesk_desk_outbox_oldest_age_seconds",
		"How long the oldest event waiting in a desk's outbox has waited, the longest of the site's desks by their latest reports to this process; 0 when none waits.", []string{"site"}, nil)
	descClock = prometheus.NewDesc("qrdesk_desk_clock_offset_max_seconds",
		"The largest clock offset (either way) among the site's desks, as their latest events to this process showed it: the offset an offline event carries, or an online scan's desk time against the server's.", []string{"site"}, nil)
	descOutbox = prometheus.NewDesc("qrdesk_desk_outbox_events",
		"Events waiting in the active desks' outboxes (not yet accepted by the server), summed over each desk's latest report to this process, by the desks' site.", []string{"site"}, nil)
)

func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descUp, descFeed, descConflicts, descWaiting, descDesks, descLastSeen, descOutbox, descBackupOK, descBackupFailed, descUnseen, descOldest, descClock, descOldDesks} {
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
	for site, n := range act.ConflictsBySite {
		ch <- prometheus.MustNewConstMetric(descConflicts, prometheus.GaugeValue, float64(n), site)
	}
	ch <- prometheus.MustNewConstMetric(descWaiting, prometheus.GaugeValue, float64(act.EventsWaiting))
	ch <- prometheus.MustNewConstMetric(descBackupOK, prometheus.GaugeValue, float64(act.Backup.LastSuccess))
	ch <- prometheus.MustNewConstMetric(descBackupFailed, prometheus.GaugeValue, float64(act.Backup.LastFailure))

	now := c.now().Unix()
	// Every site has its series, at 0 when it has no desk of a state.
	states := map[string]map[string]float64{}
	outbox := map[string]float64{}
	old := map[string]float64{}
	unseen := map[string]map[string]float64{}
	oldest, clock := map[string]float64{}, map[string]float64{}
	site := func(name string) map[string]float64 {
		if states[name] == nil {
			states[name] = map[string]float64{"online": 0, "offline": 0, "never_seen": 0, "revoked": 0}
			outbox[name] += 0
			old[name] += 0
			unseen[name] = map[string]float64{}
			for _, u := range unseenOver {
				unseen[name][u.label] = 0
			}
		}
		return states[name]
	}
	for _, name := range act.Sites {
		site(name)
	}
	buckets := make(map[float64]uint64, len(lastSeenBuckets))
	var seen uint64
	var sum float64
	for _, d := range act.Desks {
		st := site(d.Site)
		if d.Revoked {
			st["revoked"]++
			continue
		}
		outbox[d.Site] += float64(c.m.deskOutbox(d.ID))
		if p := c.m.protocolOf(d.ID); p > 0 && p < protocol.OldestDesk {
			old[d.Site]++
		}
		if at := c.m.deskOldestWaiting(d.ID); at > 0 {
			oldest[d.Site] = max(oldest[d.Site], float64(max(now-at, 0)))
		}
		if off, ok := c.m.deskClockOffset(d.ID); ok {
			clock[d.Site] = max(clock[d.Site], float64(max(off, -off))/1000)
		}
		last := max(d.FeedAckedAt, c.m.lastSeen(d.ID))
		if last == 0 {
			st["never_seen"]++
			continue
		}
		age := float64(max(now-last, 0))
		for _, u := range unseenOver {
			if age > u.over.Seconds() {
				unseen[d.Site][u.label]++
			}
		}
		if age <= DeskOnlineWithin.Seconds() {
			st["online"]++
		} else {
			st["offline"]++
		}
		seen++
		sum += age
		for _, b := range lastSeenBuckets {
			if age <= b {
				buckets[b]++ // cumulative: every bucket at or above the age
			}
		}
	}
	for name, st := range states {
		for state, n := range st {
			ch <- prometheus.MustNewConstMetric(descDesks, prometheus.GaugeValue, n, state, name)
		}
		ch <- prometheus.MustNewConstMetric(descOutbox, prometheus.GaugeValue, outbox[name], name)
		ch <- prometheus.MustNewConstMetric(descOldDesks, prometheus.GaugeValue, old[name], name)
		ch <- prometheus.MustNewConstMetric(descOldest, prometheus.GaugeValue, oldest[name], name)
		ch <- prometheus.MustNewConstMetric(descClock, prometheus.GaugeValue, clock[name], name)
		for label, n := range unseen[name] {
			ch <- prometheus.MustNewConstMetric(descUnseen, prometheus.GaugeValue, n, label, name)
		}
	}
	ch <- prometheus.MustNewConstHistogram(descLastSeen, seen, sum, buckets)
}
