package server

import (
	"fmt"
	"net/http"
	"sync"
	"time"
)

// AccessLog says which answered requests get a line in the access log. At
// 50 desks following the feed, every scan wakes every desk's long poll:
// a line per request was 30 a scan, 1,500 a second, past journald's
// per-service limit, which then drops warnings and errors with the rest.
type AccessLog string

const (
	// AccessLogSampled (the default) writes every refused or failed
	// request (status 400 and up) and, of the requests answered well, at
	// most one line per route a second, saying how many it left out
	// since ("skipped").
	AccessLogSampled AccessLog = "sampled"
	// AccessLogAll writes a line for every request.
	AccessLogAll AccessLog = "all"
	// AccessLogErrors writes only refused or failed requests.
	AccessLogErrors AccessLog = "errors"
)

// ParseAccessLog reads --access-log.
func ParseAccessLog(s string) (AccessLog, error) {
	switch m := AccessLog(s); m {
	case AccessLogSampled, AccessLogAll, AccessLogErrors:
		return m, nil
	case "":
		return AccessLogSampled, nil
	}
	return "", fmt.Errorf("--access-log %q: use sampled (every error, and one line a second per route of the rest), all, or errors", s)
}

// accessSampler lets one line a second per route through of the requests
// answered well, and counts the others.
type accessSampler struct {
	mu      sync.Mutex
	last    map[string]int64 // route → Unix second of its last line
	skipped map[string]int   // route → lines left out since
}

// admit reports whether the answer to a request on route gets its line,
// and how many lines of the route were left out before it.
func (s *accessSampler) admit(mode AccessLog, route string, status int, now time.Time) (ok bool, skipped int) {
	if mode == AccessLogAll || status >= http.StatusBadRequest {
		return true, 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.last == nil {
		s.last, s.skipped = map[string]int64{}, map[string]int{}
	}
	sec := now.Unix()
	if mode == AccessLogSampled && s.last[route] != sec {
		s.last[route] = sec
		skipped = s.skipped[route]
		s.skipped[route] = 0
		return true, skipped
	}
	s.skipped[route]++
	return false, 0
}
