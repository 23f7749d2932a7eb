// Package store keeps qrdesk's data in an embedded SQLite database
// (modernc.org/sqlite, pure Go). It implements app.Store. The server's
// database is package serverdb; what both share is internal/sqlstore.
package store
