package serverdb

import (
	"context"
	"database/sql"
	"os"
	"strconv"

	"qrdesk/internal/sqlstore"
)

// A server restored from a backup gives feed positions above every one the
// database it replaced had given. A pull script keeps the cursor of its
// last export ('qrdesk-server export --since'); were the restored feed to
// number its new changes from the backup's head again, it would reuse the
// positions the script has passed, and the script would never see what was
// decided after the restore. Above the old head, the script's next export
// returns them (and desks resending what the backup lost come again under
// their ids, which a receiver de-duplicates).

// givenFeedHead is the highest feed position the database at dsn has given,
// compacted ones too; 0 when there is no database there or it cannot be
// read (then there is nothing to stay above).
func givenFeedHead(ctx context.Context, dsn string) int64 {
	var (
		db  *sql.DB
		err error
	)
	if IsPostgres(dsn) {
		db, err = sql.Open("pgx", dsn)
	} else {
		if _, statErr := os.Stat(dsn); statErr != nil {
			return 0
		}
		db, err = sql.Open("sqlite", sqlstore.ReadOnlyDSN(dsn))
	}
	if err != nil {
		return 0
	}
	defer db.Close()
	// Read as the server reads its own head (FeedBounds), without opening
	// it as one: no migrations on the database being replaced.
	old := &DB{e: &engine{db: db, postgres: IsPostgres(dsn)}}
	_, head, err := old.FeedBounds(ctx)
	if err != nil {
		return 0 // an empty PostgreSQL database, or not a server's: nothing given
	}
	return head
}

// resumeFeedAbove makes the next feed position higher than head.
func (c *DB) resumeFeedAbove(ctx context.Context, head int64) error {
	if head <= 0 {
		return nil
	}
	if c.e.postgres {
		// placeChanges numbers above feed_resume (pgHeadExpr).
		_, err := c.e.exec(ctx, `INSERT INTO deployment (key, value) VALUES ('feed_resume', ?)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value
			WHERE CAST(deployment.value AS BIGINT) < CAST(excluded.value AS BIGINT)`, strconv.FormatInt(head, 10))
		return err
	}
	// SQLite numbers changes by AUTOINCREMENT, above sqlite_sequence.
	tx, err := c.e.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.done()
	if _, err := tx.exec(ctx, `INSERT INTO sqlite_sequence (name, seq) SELECT 'changes', 0
		WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'changes')`); err != nil {
		return err
	}
	if _, err := tx.exec(ctx, `UPDATE sqlite_sequence SET seq = ? WHERE name = 'changes' AND seq < ?`, head, head); err != nil {
		return err
	}
	return tx.commit()
}
