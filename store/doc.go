// Package store keeps qrdesk's data in an embedded SQLite database
// (modernc.org/sqlite, pure Go). It implements app.Store.
package store
