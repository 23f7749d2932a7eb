package serverdb

import (
	"context"
	"database/sql"
	"strings"
	"sync"
)

// stmtCache keeps SQLite's statements prepared. modernc's driver parses
// every statement it is given anew: under 64 desks redeeming at once,
// parsing SQL was 16 % of the server's CPU, and the token lookup every
// request makes another 14 %. database/sql prepares a kept statement once
// on each connection that runs it.
//
// Kept are single statements of up to maxCachedArgs placeholders: the
// multi-row INSERTs come in as many texts as there are row counts, and
// their parsing is small beside their rows. maxCached bounds the rest.
type stmtCache struct {
	stmts sync.Map // query → *sql.Stmt

	mu sync.Mutex // held while preparing
	n  int
}

const (
	maxCachedArgs = 24
	maxCached     = 256
)

// get returns query prepared on db, or nil when it is not to be kept or
// could not be prepared (the caller runs it unprepared, and gets the
// error from there).
func (c *stmtCache) get(ctx context.Context, db *sql.DB, query string) *sql.Stmt {
	if s, ok := c.stmts.Load(query); ok {
		return s.(*sql.Stmt)
	}
	if strings.Count(query, "?") > maxCachedArgs || strings.Contains(query, ";") {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.stmts.Load(query); ok {
		return s.(*sql.Stmt)
	}
	if c.n >= maxCached {
		return nil
	}
	s, err := db.PrepareContext(context.WithoutCancel(ctx), query)
	if err != nil {
		return nil
	}
	c.stmts.Store(query, s)
	c.n++
	return s
}

// close closes the kept statements (before the database is closed).
func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stmts.Range(func(k, s any) bool {
		s.(*sql.Stmt).Close()
		c.stmts.Delete(k)
		return true
	})
	c.n = 0
}
