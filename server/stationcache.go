package server

import (
	"sync"
	"sync/atomic"
	"time"

	"qrdesk/central"
)

// stationCache remembers token lookups for a moment. On PostgreSQL the
// lookup was one of the two round trips of every online redemption (17 %
// of the server's CPU at 64 desks, and as much again in PostgreSQL). It is
// used where the store checks the station with the write itself
// (central.Store.Apply refuses a revoked station): a revocation takes
// effect at once even when the lookup came from here; and for feed reads
// while the store says no station changed since the lookup (getUnchanged).
type stationCache struct {
	m    sync.Map // token hash → cachedStation
	size atomic.Int64
}

type cachedStation struct {
	st  central.Station
	at  time.Time // when it was looked up
	gen int64     // the store's StationsChanged before the lookup
}

const (
	// stationCacheTTL is how long a lookup serves writes (the store checks
	// the station again in the write itself).
	stationCacheTTL = 2 * time.Second
	// feedCacheTTL is how long a lookup serves feed reads while this
	// process changed no station (a change by another process, the CLI,
	// reaches them within it). Longer than the writes': a desk following
	// the feed asks every few seconds (when its site changes), and with
	// 2 s nearly every read and every long poll's recheck looked the
	// token up again — 15 % of the server's CPU at 5,000 desks; its own
	// sync (every 5 s) looks it up afresh anyway.
	feedCacheTTL     = 10 * time.Second
	stationCacheSize = 10_000 // more tokens than that: start afresh
)

func (c *stationCache) get(hash string) (central.Station, bool) {
	e, ok := c.live(hash, stationCacheTTL)
	return e.st, ok
}

// getUnchanged is the token's station for a feed read, for a lookup made
// while the store's StationsChanged was gen (and still is).
func (c *stationCache) getUnchanged(hash string, gen int64) (central.Station, bool) {
	e, ok := c.live(hash, feedCacheTTL)
	if !ok || e.gen != gen {
		return central.Station{}, false
	}
	return e.st, true
}

// live is the token's entry, unless there is none or it is older than ttl.
func (c *stationCache) live(hash string, ttl time.Duration) (cachedStation, bool) {
	v, ok := c.m.Load(hash)
	if !ok {
		return cachedStation{}, false
	}
	e := v.(cachedStation)
	if time.Since(e.at) > ttl {
		return cachedStation{}, false
	}
	return e, true
}

func (c *stationCache) put(hash string, st central.Station, gen int64) {
	if _, loaded := c.m.Swap(hash, cachedStation{st: st, at: time.Now(), gen: gen}); !loaded {
		if c.size.Add(1) > stationCacheSize {
			c.m.Clear()
			c.size.Store(0)
		}
	}
}

func (c *stationCache) drop(hash string) {
	if _, loaded := c.m.LoadAndDelete(hash); loaded {
		c.size.Add(-1)
	}
}
