package server_test

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// alertRule is one rule of deploy/prometheus/rules.yml: its name and
// expression (each on one line, as the file writes them).
type alertRule struct{ alert, expr string }

func readRules(t *testing.T) []alertRule {
	t.Helper()
	data, err := os.ReadFile("../deploy/prometheus/rules.yml")
	if err != nil {
		t.Fatal(err)
	}
	var rules []alertRule
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if name, ok := strings.CutPrefix(line, "- alert: "); ok {
			name, _, _ = strings.Cut(name, " #")
			rules = append(rules, alertRule{alert: strings.TrimSpace(name)})
		} else if expr, ok := strings.CutPrefix(line, "expr: "); ok && len(rules) > 0 {
			rules[len(rules)-1].expr = expr
		}
	}
	return rules
}

// exportedOnlyWhen are the metrics a server exports only in some
// deployments or after something happened, with where they are declared.
var exportedOnlyWhen = map[string]string{
	"qrdesk_db_write_failures_total": "metrics.go",         // from the first refused write
	"qrdesk_replica_up":              "metrics_replica.go", // with --replica-url
	"qrdesk_replica_lag_seconds":     "metrics_replica.go",
	// with a webhook endpoint
	"qrdesk_webhook_oldest_undelivered_seconds": "metrics_webhooks.go",
	"qrdesk_webhook_paused":                     "metrics_webhooks.go",
}

// TestAlertRules: the shipped alert rules (deploy/prometheus/rules.yml)
// name only metrics a real server exports, on both engines (or, for the
// few exported only in some deployments, that the server declares); each
// alert has its row in docs/deploy.md's operations table; and where
// promtool is installed (Debian's prometheus package, make deps), the file
// passes promtool check rules and its unit tests (rules_test.yml: each
// alert fires on its failure and not before).
func TestAlertRules(t *testing.T) {
	rules := readRules(t)
	if len(rules) < 14 {
		t.Fatalf("rules.yml holds %d alert rules, want the 14 of the operations table", len(rules))
	}
	docs, err := os.ReadFile("../docs/deploy.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rules {
		if r.expr == "" {
			t.Errorf("alert %s has no expr line", r.alert)
		}
		if !strings.Contains(string(docs), "`"+r.alert+"`") {
			t.Errorf("alert %s has no row in docs/deploy.md's operations table", r.alert)
		}
	}
	metricName := regexp.MustCompile(`\bqrdesk_[a-z_]+`)
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 1)
		h.Station(t, "Desk 1", "A")
		h.API.Metrics.SetCertificateExpiry(time.Date(2027, 3, 1, 0, 0, 0, 0, time.UTC))
		scrape(t, h.URL) // a request, so the request metrics have series
		exported := scrape(t, h.URL)
		for _, r := range rules {
			for _, name := range metricName.FindAllString(r.expr, -1) {
				name = strings.TrimSuffix(name, "_bucket") // a histogram's series
				if exported[name] != nil {
					continue
				}
				file, ok := exportedOnlyWhen[name]
				if ok {
					src, err := os.ReadFile(file)
					if err == nil && strings.Contains(string(src), `"`+name+`"`) {
						continue
					}
				}
				t.Errorf("alert %s: %s is not a metric the server exports (expr %s)", r.alert, name, r.expr)
			}
		}
	})
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Log("promtool is not installed (apt install prometheus): the rules' unit tests did not run")
		return
	}
	for _, args := range [][]string{{"check", "rules", "rules.yml"}, {"test", "rules", "rules_test.yml"}} {
		cmd := exec.Command(promtool, args...)
		cmd.Dir = "../deploy/prometheus"
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}
