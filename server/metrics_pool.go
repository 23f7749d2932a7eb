package server

import "github.com/prometheus/client_golang/prometheus"

// poolCollector reports the database connection pool's statistics under
// the names client_golang's DBStatsCollector uses (go_sql_…), so existing
// dashboards work. That collector wants the *sql.DB itself, which the
// store keeps to itself (every statement goes through its engine seam).
type poolCollector struct {
	src   MetricsSource
	descs map[string]*prometheus.Desc
}

func newPoolCollector(src MetricsSource) *poolCollector {
	labels := prometheus.Labels{"db_name": src.Engine()}
	d := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc("go_sql_"+name, help, nil, labels)
	}
	return &poolCollector{src: src, descs: map[string]*prometheus.Desc{
		"max_open":        d("max_open_connections", "Maximum number of open connections to the database."),
		"open":            d("open_connections", "The number of established connections both in use and idle."),
		"in_use":          d("in_use_connections", "The number of connections currently in use."),
		"idle":            d("idle_connections", "The number of idle connections."),
		"wait_count":      d("wait_count_total", "The total number of connections waited for."),
		"wait_duration":   d("wait_duration_seconds_total", "The total time blocked waiting for a new connection."),
		"idle_closed":     d("max_idle_closed_total", "The total number of connections closed due to SetMaxIdleConns."),
		"idle_time_close": d("max_idle_time_closed_total", "The total number of connections closed due to SetConnMaxIdleTime."),
		"lifetime_closed": d("max_lifetime_closed_total", "The total number of connections closed due to SetConnMaxLifetime."),
	}}
}

func (c *poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		ch <- d
	}
}

func (c *poolCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.src.PoolStats()
	gauge := func(key string, v float64) {
		ch <- prometheus.MustNewConstMetric(c.descs[key], prometheus.GaugeValue, v)
	}
	counter := func(key string, v float64) {
		ch <- prometheus.MustNewConstMetric(c.descs[key], prometheus.CounterValue, v)
	}
	gauge("max_open", float64(s.MaxOpenConnections))
	gauge("open", float64(s.OpenConnections))
	gauge("in_use", float64(s.InUse))
	gauge("idle", float64(s.Idle))
	counter("wait_count", float64(s.WaitCount))
	counter("wait_duration", s.WaitDuration.Seconds())
	counter("idle_closed", float64(s.MaxIdleClosed))
	counter("idle_time_close", float64(s.MaxIdleTimeClosed))
	counter("lifetime_closed", float64(s.MaxLifetimeClosed))
}
