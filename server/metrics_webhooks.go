package server

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"qrdesk/webhook"
)

// WebhookReporter is the state of the webhook endpoints, read at a scrape
// (serverdb.DB): NewMetrics exports it when its source has it.
type WebhookReporter interface {
	WebhookBacklog(ctx context.Context) ([]webhook.Backlog, error)
}

var (
	descWebhookOldest = prometheus.NewDesc("qrdesk_webhook_oldest_undelivered_seconds",
		"Age (the server's clock) of the oldest decided event the endpoint has not received yet; 0 when it has every one.", []string{"endpoint"}, nil)
	descWebhookPaused = prometheus.NewDesc("qrdesk_webhook_paused",
		"1 when the endpoint is paused (qrdesk-server webhook pause): its events wait.", []string{"endpoint"}, nil)
	descWebhookFailures = prometheus.NewDesc("qrdesk_webhook_failures_in_a_row",
		"Delivery attempts to the endpoint that failed since its last success.", []string{"endpoint"}, nil)
)

type webhookCollector struct {
	r   WebhookReporter
	now func() time.Time
}

func (c *webhookCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- descWebhookOldest
	ch <- descWebhookPaused
	ch <- descWebhookFailures
}

func (c *webhookCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	list, err := c.r.WebhookBacklog(ctx)
	if err != nil {
		return // qrdesk_database_up says the database is away
	}
	now := c.now().Unix()
	for _, b := range list {
		age := 0.0
		if b.Oldest > 0 {
			age = float64(max(now-b.Oldest, 0))
		}
		paused := 0.0
		if b.Paused {
			paused = 1
		}
		ch <- prometheus.MustNewConstMetric(descWebhookOldest, prometheus.GaugeValue, age, b.Name)
		ch <- prometheus.MustNewConstMetric(descWebhookPaused, prometheus.GaugeValue, paused, b.Name)
		ch <- prometheus.MustNewConstMetric(descWebhookFailures, prometheus.GaugeValue, float64(b.Failures), b.Name)
	}
}
