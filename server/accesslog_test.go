package server_test

import (
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"qrdesk/internal/centraltest"
	"qrdesk/server"
)

// TestAccessLogSampled: a burst of requests answered well writes at most
// one access line a second per route, each line saying how many it left
// out before it, and the metric counts every one left out; so every
// request is accounted for. A refused request always gets its line.
// --access-log all writes every request, errors only the refused ones.
// (The access log does not touch the database: SQLite only.)
func TestAccessLogSampled(t *testing.T) {
	const burst = 300
	for _, tc := range []struct {
		mode server.AccessLog
		// lines of the good burst, as a function of the seconds it spanned
		maxGood func(seconds int) int
		minGood int
	}{
		{server.AccessLogSampled, func(s int) int { return s }, 1},
		{server.AccessLogAll, func(int) int { return burst }, burst},
		{server.AccessLogErrors, func(int) int { return 0 }, 0},
	} {
		t.Run(string(tc.mode), func(t *testing.T) {
			h := centraltest.New(t, func(t testing.TB) string { return t.TempDir() + "/server.db" }, 0)
			var logged lockedBuffer
			h.API.Log = slog.New(slog.NewTextHandler(&logged, nil))
			h.API.AccessLog = tc.mode
			get := func(path, token string) int {
				req, _ := http.NewRequest("GET", h.URL+path, nil)
				if token != "" {
					req.Header.Set("Authorization", "Bearer "+token)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				return resp.StatusCode
			}
			first := wallSecond()
			for range burst {
				if code := get("/v1/health", ""); code != 200 {
					t.Fatalf("health: %d", code)
				}
			}
			seconds := wallSecond() - first + 1
			for range 3 {
				if code := get("/v1/nowhere", ""); code != http.StatusNotFound {
					t.Fatalf("an unknown path: %d, want 404", code)
				}
			}
			health, skipped := accessLines(logged.String(), "/v1/health")
			if health > tc.maxGood(seconds) || health < tc.minGood {
				t.Errorf("%d access lines for %d good requests over %d s, want %d to %d", health, burst, seconds, tc.minGood, tc.maxGood(seconds))
			}
			if refused, _ := accessLines(logged.String(), "/v1/nowhere"); refused != 3 {
				t.Errorf("%d access lines for 3 refused requests, want 3", refused)
			}
			metric := skippedMetric(t, h.URL, "GET /v1/health")
			if tc.mode == server.AccessLogSampled && health+metric != burst {
				t.Errorf("%d lines + %d counted as skipped = %d, want every one of %d requests", health, metric, health+metric, burst)
			}
			if tc.mode == server.AccessLogSampled && skipped > metric {
				t.Errorf("the lines say %d skipped, the metric %d", skipped, metric)
			}
		})
	}
}

// wallSecond is the wall clock's second, as the sampler reads it.
func wallSecond() int { return int(time.Now().Unix()) }

// accessLines counts the access log's lines for path and adds up their
// skipped= attributes.
func accessLines(log, path string) (lines, skipped int) {
	re := regexp.MustCompile(`skipped=(\d+)`)
	for _, l := range strings.Split(log, "\n") {
		if !strings.Contains(l, "msg=request ") || !strings.Contains(l, "path="+path+" ") {
			continue
		}
		lines++
		if m := re.FindStringSubmatch(l); m != nil {
			n, _ := strconv.Atoi(m[1])
			skipped += n
		}
	}
	return lines, skipped
}

// skippedMetric reads qrdesk_access_log_skipped_total for route.
func skippedMetric(t *testing.T, url, route string) int {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	re := regexp.MustCompile(`qrdesk_access_log_skipped_total\{route="` + regexp.QuoteMeta(route) + `"\} (\d+)`)
	m := re.FindStringSubmatch(string(body))
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}
