package serverdb

import (
	"context"
	"database/sql"
	"errors"

	"qrdesk/central"
	"qrdesk/protocol"
)

// answerDecided answers a request of a station refused as revoked (or
// whose token was renewed) when the server decided every one of its
// events already, while the token was valid: same event id, same station,
// same content (central.SameEvent). Each is answered as a duplicate, as it
// would have been before the revocation. Telling a decision again grants
// nothing new, and it keeps the desk's word and the server's the same: a
// desk whose request went twice, once before the revocation and once
// after, was otherwise told "refused" of a redemption the server holds,
// and its clerk handed nothing over for a label the server says is used.
//
// ok is false, and nothing is answered, when any event is not decided yet
// or differs from the one decided under its id: the request stays refused.
// So is an offline redemption sent under the id of an online attempt the
// server answered no (applyInTx decides it anew: a new decision).
func (c *DB) answerDecided(ctx context.Context, st central.Station, evs []protocol.Event) (out []protocol.Result, ok bool, err error) {
	if len(evs) == 0 {
		return nil, false, nil
	}
	tx, err := c.e.begin(ctx)
	if err != nil {
		return nil, false, err
	}
	defer tx.done()
	if c.e.postgres {
		// Wait for a decision of the station under way: each holds the
		// station's row (its write number) until it commits. A copy let
		// in before the revocation and still being decided is then read
		// here, not refused. (SQLite: one writer, begin waited already.)
		var id int64
		err := tx.queryRow(ctx, `SELECT id FROM stations WHERE id = ? FOR SHARE`, st.ID).Scan(&id)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return nil, false, nil
		case err != nil:
			return nil, false, err
		}
	}
	out = make([]protocol.Result, 0, len(evs))
	for _, ev := range evs {
		prev, err := c.readEvent(ctx, tx, ev.EventID)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return nil, false, nil
		case err != nil:
			return nil, false, err
		}
		if same, _ := central.SameEvent(prev.ev, prev.station, ev, st.Name); !same {
			return nil, false, nil
		}
		if ev.Kind == protocol.KindRedeem && ev.Offline && !prev.ev.Offline && prev.outcome != protocol.OutcomeRedeemed {
			return nil, false, nil
		}
		r, err := c.duplicateAnswer(ctx, tx, prev)
		if err != nil {
			return nil, false, err
		}
		out = append(out, r)
	}
	return out, true, nil // read only: done rolls back
}
