package serverdb

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"slices"
	"strings"

	"qrdesk/central"
)

// The dashboard's administrators and their sessions.
//
// Each administrator has a secret: a random value made when the account is
// added and replaced by every password reset. A session records the secret
// it was made under, and is live only while that is still the
// administrator's: a reset or a removal ends every session of the old
// secret, including one saved by a sign-in that checked the old password
// while the reset committed, and a name added again has a new secret, so a
// session left from the removed account opens nothing.

// newAdminSecret is a new random secret for an administrator.
func newAdminSecret() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// AddAdmin creates an administrator with a password hash, limited to
// a.Sites when not nil; central.ErrAdminExists when the name is taken, a
// *central.NoSite when a site has no such name.
func (c *DB) AddAdmin(ctx context.Context, a central.Admin, passwordHash string) error {
	if err := central.ValidateAdminName(a.Name); err != nil {
		return err
	}
	sites, names, err := c.siteIDs(ctx, a.Sites)
	if err != nil {
		return err
	}
	tx, err := c.e.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.done()
	if _, err := tx.exec(ctx, `INSERT INTO admins (name, password_hash, secret, created_at, all_sites) VALUES (?, ?, ?, ?, ?)`,
		a.Name, passwordHash, newAdminSecret(), a.CreatedAt, boolInt(a.Sites == nil)); isUniqueAny(err) {
		return central.ErrAdminExists
	} else if err != nil {
		return err
	}
	if err := setAdminSites(ctx, tx, a.Name, sites); err != nil {
		return err
	}
	// Sessions left from a removed account of this name: dead already (their
	// secret is not the new one), deleted for tidiness.
	if _, err := tx.exec(ctx, `DELETE FROM admin_sessions WHERE admin = ?`, a.Name); err != nil {
		return err
	}
	if err := logAdmin(ctx, tx, central.AdminAction{At: a.CreatedAt, Action: "admin_add", Subject: a.Name, Detail: sitesDetail(names)}); err != nil {
		return err
	}
	return tx.commit()
}

// SetAdminSites limits an administrator to the sites named (nil: every
// site again). It takes effect at their next page: the dashboard reads
// the administrator's sites at every request, so no one is signed out.
// central.ErrNoAdmin, *central.NoSite.
func (c *DB) SetAdminSites(ctx context.Context, name string, sites []string, at int64) error {
	ids, names, err := c.siteIDs(ctx, sites)
	if err != nil {
		return err
	}
	tx, err := c.e.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.done()
	res, err := tx.exec(ctx, `UPDATE admins SET all_sites = ? WHERE name = ?`, boolInt(sites == nil), name)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return central.ErrNoAdmin
	}
	if _, err := tx.exec(ctx, `DELETE FROM admin_sites WHERE admin = ?`, name); err != nil {
		return err
	}
	if err := setAdminSites(ctx, tx, name, ids); err != nil {
		return err
	}
	if err := logAdmin(ctx, tx, central.AdminAction{At: at, Action: "admin_sites", Subject: name, Detail: sitesDetail(names)}); err != nil {
		return err
	}
	return tx.commit()
}

// siteIDs finds the sites of names (any case), without repeats, and
// their names as the sites spell them; nil for nil (every site). A limit
// naming no site is refused: it would show the administrator nothing.
func (c *DB) siteIDs(ctx context.Context, names []string) ([]int64, []string, error) {
	if names == nil {
		return nil, nil, nil
	}
	if len(names) == 0 {
		_, err := central.ParseSiteList("")
		return nil, nil, err
	}
	ids, spelt := []int64{}, []string{}
	for _, n := range names {
		var id int64
		var name string
		err := c.e.queryRow(ctx, `SELECT id, name FROM sites WHERE lower(name) = lower(?)`, strings.TrimSpace(n)).Scan(&id, &name)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, nil, &central.NoSite{Name: n}
		}
		if err != nil {
			return nil, nil, err
		}
		if !slices.Contains(ids, id) {
			ids, spelt = append(ids, id), append(spelt, name)
		}
	}
	return ids, spelt, nil
}

func setAdminSites(ctx context.Context, tx *etx, admin string, sites []int64) error {
	for _, id := range sites {
		if _, err := tx.exec(ctx, `INSERT INTO admin_sites (admin, site) VALUES (?, ?)`, admin, id); err != nil {
			return err
		}
	}
	return nil
}

// sitesDetail is the audit trail's detail of an administrator's sites.
func sitesDetail(sites []string) string {
	if sites == nil {
		return "all sites"
	}
	return "sites " + strings.Join(sites, ", ")
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// AdminScope returns the sites an administrator sees and acts on;
// central.ErrNoAdmin when there is no such administrator.
func (c *DB) AdminScope(ctx context.Context, name string) (central.Scope, error) {
	var all int
	err := c.e.queryRow(ctx, `SELECT all_sites FROM admins WHERE name = ?`, name).Scan(&all)
	if errors.Is(err, sql.ErrNoRows) {
		return central.Scope{}, central.ErrNoAdmin
	}
	if err != nil || all == 1 {
		return central.Scope{All: all == 1}, err
	}
	rows, err := c.e.query(ctx, `SELECT s.id, s.name FROM admin_sites a JOIN sites s ON s.id = a.site WHERE a.admin = ? ORDER BY s.name`, name)
	if err != nil {
		return central.Scope{}, err
	}
	defer rows.Close()
	scope := central.Scope{Sites: []central.Site{}}
	for rows.Next() {
		var s central.Site
		if err := rows.Scan(&s.ID, &s.Name); err != nil {
			return central.Scope{}, err
		}
		scope.Sites = append(scope.Sites, s)
	}
	return scope, rows.Err()
}

// RemoveAdmin deletes an administrator and signs out their sessions.
func (c *DB) RemoveAdmin(ctx context.Context, name string, at int64) error {
	return c.changeAdmin(ctx, name, "admin_remove", at, `DELETE FROM admins WHERE name = ?`, name)
}

// ResetAdminPassword gives an administrator a new password hash and a new
// secret, which signs out their sessions (a sign-in with the old password
// still under way too); central.ErrNoAdmin when there is no such one.
func (c *DB) ResetAdminPassword(ctx context.Context, name, passwordHash string, at int64) error {
	return c.changeAdmin(ctx, name, "admin_reset", at, `UPDATE admins SET password_hash = ?, secret = ? WHERE name = ?`, passwordHash, newAdminSecret(), name)
}

// changeAdmin runs the statement on the administrator's row, signs out
// their sessions and logs the action, in one transaction;
// central.ErrNoAdmin when the statement found no such administrator.
func (c *DB) changeAdmin(ctx context.Context, name, action string, at int64, query string, args ...any) error {
	tx, err := c.e.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.done()
	res, err := tx.exec(ctx, query, args...)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return central.ErrNoAdmin
	}
	if _, err := tx.exec(ctx, `DELETE FROM admin_sessions WHERE admin = ?`, name); err != nil {
		return err
	}
	if err := logAdmin(ctx, tx, central.AdminAction{At: at, Action: action, Subject: name}); err != nil {
		return err
	}
	return tx.commit()
}

// Admins lists the administrators by name, each with the sites they are
// limited to (nil: every site).
func (c *DB) Admins(ctx context.Context) ([]central.Admin, error) {
	rows, err := c.e.query(ctx, `SELECT a.name, a.created_at, a.all_sites, COALESCE(s.name, '') FROM admins a
		LEFT JOIN admin_sites x ON x.admin = a.name AND a.all_sites = 0
		LEFT JOIN sites s ON s.id = x.site
		ORDER BY a.name, s.name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []central.Admin
	for rows.Next() {
		var a central.Admin
		var all int
		var site string
		if err := rows.Scan(&a.Name, &a.CreatedAt, &all, &site); err != nil {
			return nil, err
		}
		if len(out) == 0 || out[len(out)-1].Name != a.Name {
			if all == 0 {
				a.Sites = []string{}
			}
			out = append(out, a)
		}
		if site != "" {
			last := &out[len(out)-1]
			last.Sites = append(last.Sites, site)
		}
	}
	return out, rows.Err()
}

// AdminPasswordHash returns an administrator's password hash;
// central.ErrNoAdmin when there is no such administrator.
func (c *DB) AdminPasswordHash(ctx context.Context, name string) (string, error) {
	var h string
	err := c.e.queryRow(ctx, `SELECT password_hash FROM admins WHERE name = ?`, name).Scan(&h)
	if errors.Is(err, sql.ErrNoRows) {
		return "", central.ErrNoAdmin
	}
	return h, err
}

// AddSession records a signed-in browser, if passwordHash (the hash the
// sign-in checked the password against) is still the administrator's, and
// drops expired sessions. The session is made under the administrator's
// current secret in the same statement that checks the hash; a reset that
// commits after that ends it anyway. central.ErrPasswordChanged when the
// password was reset or the account removed since the hash was read.
func (c *DB) AddSession(ctx context.Context, s central.Session, passwordHash string) error {
	tx, err := c.e.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.done()
	if _, err := tx.exec(ctx, `DELETE FROM admin_sessions WHERE expires_at <= ?`, s.CreatedAt); err != nil {
		return err
	}
	res, err := tx.exec(ctx, `INSERT INTO admin_sessions (id_hash, admin, secret, created_at, expires_at)
		SELECT ?, name, secret, ?, ? FROM admins WHERE name = ? AND password_hash = ?`, s.IDHash, s.CreatedAt, s.ExpiresAt, s.Admin, passwordHash)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return central.ErrPasswordChanged
	}
	if err := logAdmin(ctx, tx, central.AdminAction{At: s.CreatedAt, Admin: s.Admin, Action: "sign_in", Subject: s.Admin}); err != nil {
		return err
	}
	return tx.commit()
}

// Session returns the session with the id hash if it has not expired at
// now and was made under its administrator's current secret (the account
// exists, its password was not reset since); central.ErrNoSession
// otherwise.
func (c *DB) Session(ctx context.Context, idHash string, now int64) (central.Session, error) {
	var s central.Session
	err := c.e.queryRow(ctx, `SELECT s.id_hash, s.admin, s.created_at, s.expires_at FROM admin_sessions s
		JOIN admins a ON a.name = s.admin AND a.secret = s.secret WHERE s.id_hash = ? AND s.expires_at > ?`, idHash, now).Scan(&s.IDHash, &s.Admin, &s.CreatedAt, &s.ExpiresAt)
	if errors.Is(err, sql.ErrNoRows) {
		return s, central.ErrNoSession
	}
	return s, err
}

// DeleteSession signs a browser out.
func (c *DB) DeleteSession(ctx context.Context, idHash string) error {
	_, err := c.e.exec(ctx, `DELETE FROM admin_sessions WHERE id_hash = ?`, idHash)
	return err
}

// LogAdmin adds a line to the administrators' audit trail.
func (c *DB) LogAdmin(ctx context.Context, a central.AdminAction) error {
	tx, err := c.e.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.done()
	if err := logAdmin(ctx, tx, a); err != nil {
		return err
	}
	return tx.commit()
}

// AdminLog returns the audit trail's lines from at on, oldest first.
func (c *DB) AdminLog(ctx context.Context, since int64) ([]central.AdminAction, error) {
	rows, err := c.e.query(ctx, `SELECT at, admin, action, subject, detail FROM admin_log WHERE at >= ? ORDER BY id`, since)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []central.AdminAction
	for rows.Next() {
		var a central.AdminAction
		if err := rows.Scan(&a.At, &a.Admin, &a.Action, &a.Subject, &a.Detail); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}
