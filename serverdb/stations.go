package serverdb

import (
	"context"
	"database/sql"
	"errors"

	"qrdesk/central"
)

// Stations: the enrolled desks, each with its token (kept as a hash), its
// station letter, its site and its revocation (central.Store).

func (c *DB) AddStation(ctx context.Context, st central.Station, tokenHash string) error {
	if err := central.ValidateStation(st); err != nil {
		return err
	}
	site, err := c.siteID(ctx, st.Site)
	if err != nil {
		return err
	}
	_, err = c.e.exec(ctx, `INSERT INTO stations (name, token_hash, letter, created_at, site) VALUES (?, ?, ?, ?, ?)`, st.Name, tokenHash, st.Letter, st.CreatedAt, site)
	if isUniqueAny(err) {
		return c.whyTaken(ctx, st)
	}
	return err
}

// whyTaken explains a refused enrolment: the name or the letter is taken.
func (c *DB) whyTaken(ctx context.Context, st central.Station) error {
	var holder string
	if st.Letter != "" {
		if err := c.e.queryRow(ctx, `SELECT name FROM stations WHERE letter = ?`, st.Letter).Scan(&holder); err == nil && holder != st.Name {
			return &central.LetterTaken{Letter: st.Letter, Holder: holder}
		}
	}
	return central.ErrStationExists
}

// SetStationLetter binds a letter to a station enrolled without one.
func (c *DB) SetStationLetter(ctx context.Context, name, letter string) error {
	defer c.stationsChanged()
	if err := central.ValidateStation(central.Station{Name: name, Letter: letter}); err != nil {
		return err
	}
	res, err := c.e.exec(ctx, `UPDATE stations SET letter = ? WHERE name = ? AND (letter = '' OR letter = ?)`, letter, name, letter)
	if isUniqueAny(err) {
		return c.whyTaken(ctx, central.Station{Name: name, Letter: letter})
	}
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		var cur string
		if err := c.e.queryRow(ctx, `SELECT letter FROM stations WHERE name = ?`, name).Scan(&cur); err != nil {
			return central.ErrNoStation
		}
		return central.Badf("station %q already issues with letter %s: a letter cannot change once codes carry it", name, cur)
	}
	return nil
}

// RenewStation gives the station a new token and lifts a revocation. The
// old token is kept (renewed_tokens) so that a desk still using it is told
// its token was renewed (StationByToken: ErrTokenRenewed).
func (c *DB) RenewStation(ctx context.Context, name, tokenHash string) error {
	defer c.stationsChanged()
	tx, err := c.e.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.done()
	if _, err := tx.exec(ctx, `INSERT INTO renewed_tokens (token_hash, station) SELECT token_hash, id FROM stations WHERE name = ? AND token_hash <> ?
		ON CONFLICT (token_hash) DO NOTHING`, name, tokenHash); err != nil {
		return err
	}
	if _, err := tx.exec(ctx, `DELETE FROM renewed_tokens WHERE token_hash = ?`, tokenHash); err != nil {
		return err
	}
	res, err := tx.exec(ctx, `UPDATE stations SET token_hash = ?, revoked_at = 0 WHERE name = ?`, tokenHash, name)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return central.ErrNoStation
	}
	return tx.commit()
}

func (c *DB) RevokeStation(ctx context.Context, name string, at int64) error {
	defer c.stationsChanged()
	res, err := c.e.exec(ctx, `UPDATE stations SET revoked_at = ? WHERE name = ? AND revoked_at = 0`, at, name)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		var revokedAt int64
		if err := c.e.queryRow(ctx, `SELECT revoked_at FROM stations WHERE name = ?`, name).Scan(&revokedAt); err != nil {
			return central.ErrNoStation
		}
		return central.ErrAlreadyRevoked
	}
	return nil
}

func (c *DB) Stations(ctx context.Context) ([]central.Station, error) {
	rows, err := c.e.query(ctx, `SELECT t.id, t.name, t.letter, t.created_at, t.revoked_at, t.site, s.name FROM stations t JOIN sites s ON s.id = t.site ORDER BY t.name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []central.Station
	for rows.Next() {
		var s central.Station
		if err := rows.Scan(&s.ID, &s.Name, &s.Letter, &s.CreatedAt, &s.RevokedAt, &s.SiteID, &s.Site); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

func (c *DB) StationByToken(ctx context.Context, tokenHash string) (central.Station, error) {
	s := central.Station{TokenHash: tokenHash}
	err := c.e.queryRow(ctx, `SELECT t.id, t.name, t.letter, t.created_at, t.revoked_at, t.writes, t.site, t.site_from, s.name
		FROM stations t JOIN sites s ON s.id = t.site WHERE t.token_hash = ?`, tokenHash).
		Scan(&s.ID, &s.Name, &s.Letter, &s.CreatedAt, &s.RevokedAt, &s.Writes, &s.SiteID, &s.SiteFrom, &s.Site)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return c.renewedToken(ctx, tokenHash)
	case err == nil && s.RevokedAt != 0:
		return s, central.ErrRevoked
	}
	return s, err
}

// renewedToken is StationByToken's answer for a token no station holds:
// ErrTokenRenewed (with the station's name) when it is one a station had
// before 'station renew', else ErrUnauthorized. The station is the whole
// row but for its token (the old one, which no write takes: Apply answers
// it only what it decided before, answerDecided).
func (c *DB) renewedToken(ctx context.Context, tokenHash string) (central.Station, error) {
	s := central.Station{TokenHash: tokenHash}
	err := c.e.queryRow(ctx, `SELECT t.id, t.name, t.letter, t.created_at, t.revoked_at, t.writes, t.site, t.site_from, s.name
		FROM renewed_tokens r JOIN stations t ON t.id = r.station JOIN sites s ON s.id = t.site WHERE r.token_hash = ?`, tokenHash).
		Scan(&s.ID, &s.Name, &s.Letter, &s.CreatedAt, &s.RevokedAt, &s.Writes, &s.SiteID, &s.SiteFrom, &s.Site)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return s, central.ErrUnauthorized
	case err != nil:
		return s, err
	}
	return s, central.ErrTokenRenewed
}

// stationSite is the site a station's uploads belong to: the first site
// for a station value made without one (tests).
func stationSite(st central.Station) int64 {
	if st.SiteID == 0 {
		return 1
	}
	return st.SiteID
}

// stationActive returns ErrRevoked when the station was revoked, or its
// token renewed since it was looked up: Apply may be given a station from
// a cache of token lookups.
func stationActive(ctx context.Context, queryRow func(context.Context, string, ...any) writeRow, st central.Station) error {
	var n int
	err := queryRow(ctx, `SELECT count(*) FROM stations WHERE id = ? AND token_hash = ? AND revoked_at = 0`, st.ID, st.TokenHash).Scan(&n)
	if err == nil && n == 0 {
		return central.ErrRevoked
	}
	return err
}
