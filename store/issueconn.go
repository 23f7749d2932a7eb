package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
)

// Page cache of the connection that issues a batch, and the default it
// returns to (SQLite's, 2,000 KiB). The UNIQUE index on the random part is
// random by nature: in a database of a million codes it no longer fits in
// the default cache, and each of a batch's inserts read a leaf page back
// from the file; with the whole index in cache each page is read once.
// That index takes about 23 MB at a million codes (the others grow at their
// right edge only). The cache is also most of a large issue's memory: each
// 4 KiB page takes about 8 KiB of the process (a page and its header round
// up to the allocator's next size), so 128 MB of cache made a million-code
// issue peak at 560 MB; 40 MB issues as fast into a database of a million.
const (
	issueCacheKiB   = 40 << 10
	defaultCacheKiB = 2000
)

// issueConn takes one connection of the pool for issuing count codes and
// sets it up for that (a pragma on the pool reaches any one connection):
//   - a larger page cache for a batch of more than 10,000 codes;
//   - no foreign-key checks: the rows an issue writes (its codes, an
//     order) refer only to the batch row the same transaction inserts
//     first. With the check on, SQLite had to
//     be able to undo each multi-row INSERT halfway, and wrote every page
//     the statement changed to a temporary file first (its statement
//     journal): 27 % of an issue's CPU, mostly in write calls.
//
// release puts the connection back as the pool's others are; one that
// cannot be put back is closed instead of being reused.
func (d *DB) issueConn(ctx context.Context, count int) (*sql.Conn, func(), error) {
	conn, err := d.db.Conn(ctx)
	if err != nil {
		return nil, nil, err
	}
	setup := []string{"PRAGMA foreign_keys = OFF"}
	reset := []string{"PRAGMA foreign_keys = ON"}
	if count > 10_000 {
		setup = append(setup, fmt.Sprintf("PRAGMA cache_size = -%d", issueCacheKiB))
		reset = append(reset, fmt.Sprintf("PRAGMA cache_size = -%d", defaultCacheKiB))
	}
	release := func() {
		for _, q := range reset {
			if _, err := conn.ExecContext(context.WithoutCancel(ctx), q); err != nil {
				conn.Raw(func(any) error { return driver.ErrBadConn }) // not back to the pool
				break
			}
		}
		conn.Close()
	}
	for _, q := range setup {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			release()
			return nil, nil, err
		}
	}
	return conn, release, nil
}
