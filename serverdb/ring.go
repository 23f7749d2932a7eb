package serverdb

import (
	"context"
	"database/sql"
	"errors"
)

// The deployment's key ring: the one ring id every desk's requests carry
// (protocol.RingHeader). The first enrolment binds it; an administrator
// may forget it after a wrong first enrolment (central.Store).

func (c *DB) RingID(ctx context.Context) (string, error) {
	var id string
	err := c.e.queryRow(ctx, `SELECT value FROM deployment WHERE key = 'ring_id'`).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return id, err
}

func (c *DB) BindRing(ctx context.Context, id string) (string, error) {
	if _, err := c.e.exec(ctx, `INSERT INTO deployment (key, value) VALUES ('ring_id', ?) ON CONFLICT (key) DO NOTHING`, id); err != nil {
		return "", err
	}
	return c.RingID(ctx)
}

func (c *DB) ResetRing(ctx context.Context) error {
	_, err := c.e.exec(ctx, `DELETE FROM deployment WHERE key = 'ring_id'`)
	return err
}
