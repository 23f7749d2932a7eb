package serverdb

import (
	"context"

	"qrdesk/central"
)

// SetDeskVersion records what a station's desk says it runs (the Desks
// page); it writes only when that changed.
func (c *DB) SetDeskVersion(ctx context.Context, stationID int64, v central.DeskVersion) error {
	tx, err := c.e.begin(ctx) // through the writer queue, as every SQLite write
	if err != nil {
		return err
	}
	defer tx.done()
	if _, err := tx.exec(ctx, `UPDATE stations SET desk_release = ?, desk_protocol = ?
		WHERE id = ? AND (desk_release <> ? OR desk_protocol <> ?)`, v.Release, v.Protocol, stationID, v.Release, v.Protocol); err != nil {
		return err
	}
	return tx.commit()
}
