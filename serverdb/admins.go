package serverdb

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"

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

// AddAdmin creates an administrator with a password hash;
// central.ErrAdminExists when the name is taken.
func (c *DB) AddAdmin(ctx context.Context, a central.Admin, passwordHash string) error {
	if err := central.ValidateAdminName(a.Name); err != nil {
		return err
	}
	tx, err := c.e.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.done()
	if _, err := tx.exec(ctx, `INSERT INTO admins (name, password_hash, secret, created_at) VALUES (?, ?, ?, ?)`, a.Name, passwordHash, newAdminSecret(), a.CreatedAt); isUniqueAny(err) {
		return central.ErrAdminExists
	} else if err != nil {
		return err
	}
	// Sessions left from a removed account of this name: dead already (their
	// secret is not the new one), deleted for tidiness.
	if _, err := tx.exec(ctx, `DELETE FROM admin_sessions WHERE admin = ?`, a.Name); err != nil {
		return err
	}
	if err := logAdmin(ctx, tx, central.AdminAction{At: a.CreatedAt, Action: "admin_add", Subject: a.Name}); err != nil {
		return err
	}
	return tx.commit()
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

// Admins lists the administrators by name.
func (c *DB) Admins(ctx context.Context) ([]central.Admin, error) {
	rows, err := c.e.query(ctx, `SELECT name, created_at FROM admins ORDER BY name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []central.Admin
	for rows.Next() {
		var a central.Admin
		if err := rows.Scan(&a.Name, &a.CreatedAt); err != nil {
			return nil, err
		}
		out = append(out, a)
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
