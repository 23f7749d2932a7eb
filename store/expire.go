package store

import (
	"context"
	"database/sql"

	"qrdesk/app"
	"qrdesk/protocol"
)

// The day's expiry at the desk: every unused label of the closed day
// becomes expired here and is queued as an expire event, in the closing
// transaction, so the server (and through its feed every desk) expires it
// too, unless another desk used it meanwhile.

// expireDay expires the unused labels of day and queues one expire event
// per label: two statements whatever the number of labels (an INSERT …
// SELECT, then the UPDATE), so a day of 100,000 labels closes in well
// under a second.
func expireDay(ctx context.Context, tx *sql.Tx, day string, actor app.Actor, at int64) (int, error) {
	// Event ids as app.NewTraceID makes them: 16 random hex digits.
	// Each event names the site the desk knows it is in (protocol.Event.Site).
	if _, err := tx.ExecContext(ctx, `INSERT INTO outbox (event_id, kind, code, operator, at, reason, site)
		SELECT lower(hex(randomblob(8))), ?, code, ?, ?, ?, `+deskSite+` FROM codes WHERE label_date = ? AND status = 'unused' ORDER BY id`,
		protocol.KindExpire, actor.Operator, at, "day "+day+" closed", day); err != nil {
		return 0, err
	}
	res, err := tx.ExecContext(ctx, `UPDATE codes SET status = 'expired' WHERE label_date = ? AND status = 'unused'`, day)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// deskSite is the SQL of the name of the desk's site as the server
// announced it at the last enrolment ("": none known, a server before
// sites or a desk never synced).
const deskSite = `COALESCE((SELECT CASE WHEN json_valid(value) THEN json_extract(value, '$.site') END FROM sync_state WHERE key = 'server_sites'), '')`

// applyExpireChange applies another desk's (or this desk's own) expiry
// from the feed: the label takes the server's resulting status, expired,
// while it is unused here and no event of this desk on it waits in the
// outbox (that event is newer than the feed; the server answers it and
// its change comes back through the feed).
func applyExpireChange(ctx context.Context, tx *sql.Tx, ch protocol.Change) error {
	c, err := app.Parse(ch.Code)
	if err != nil {
		return nil // not a code this desk can hold
	}
	// By its random part (indexed): a closed day may bring 100,000.
	_, err = tx.ExecContext(ctx, `UPDATE codes SET status = 'expired' WHERE random = ? AND code = ? AND status = 'unused'
		AND NOT EXISTS (SELECT 1 FROM outbox WHERE outbox.state = 'pending' AND outbox.code = ?)`, c.Random, ch.Code, ch.Code)
	return err
}
