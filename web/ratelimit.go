package web

import (
	"sync"
	"time"
)

// Sign-in guessing is limited twice: per name (someone guessing one
// administrator's password from many addresses) and per address (someone
// trying many names). Only failures count; a success clears the name's.
const (
	loginWindow      = 15 * time.Minute
	maxFailsPerName  = 5
	maxFailsPerIP    = 20
	maxTrackedFailed = 10000 // keys kept at most; the oldest are forgotten
)

type loginLimiter struct {
	mu     sync.Mutex
	byName map[string][]time.Time
	byIP   map[string][]time.Time
}

func newLoginLimiter() *loginLimiter {
	return &loginLimiter{byName: map[string][]time.Time{}, byIP: map[string][]time.Time{}}
}

// blocked returns how long until name and ip may try again (0: now).
func (l *loginLimiter) blocked(name, ip string, now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return max(wait(l.byName, name, maxFailsPerName, now), wait(l.byIP, ip, maxFailsPerIP, now))
}

// wait is how long until fewer than limit failures of key lie within the
// window.
func wait(m map[string][]time.Time, key string, limit int, now time.Time) time.Duration {
	fails := recent(m, key, now)
	if len(fails) < limit {
		return 0
	}
	return fails[len(fails)-limit].Add(loginWindow).Sub(now)
}

// recent drops the failures of key older than the window and returns the rest.
func recent(m map[string][]time.Time, key string, now time.Time) []time.Time {
	fails := m[key]
	i := 0
	for i < len(fails) && now.Sub(fails[i]) >= loginWindow {
		i++
	}
	fails = fails[i:]
	if len(fails) == 0 {
		delete(m, key)
	} else {
		m[key] = fails
	}
	return fails
}

func (l *loginLimiter) failed(name, ip string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, kv := range []struct {
		m   map[string][]time.Time
		key string
	}{{l.byName, name}, {l.byIP, ip}} {
		if len(kv.m) >= maxTrackedFailed {
			forgetOldest(kv.m, now)
		}
		kv.m[kv.key] = append(recent(kv.m, kv.key, now), now)
	}
}

// forgetOldest drops the keys whose failures are all out of the window,
// or, if none, clears the map: memory stays bounded under a flood of names.
func forgetOldest(m map[string][]time.Time, now time.Time) {
	for k := range m {
		recent(m, k, now)
	}
	if len(m) >= maxTrackedFailed {
		clear(m)
	}
}

func (l *loginLimiter) succeeded(name string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.byName, name)
}
