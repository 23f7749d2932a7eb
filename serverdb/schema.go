package serverdb

import "qrdesk/internal/sqlstore"

// SchemaVersion is the server database's schema version this build
// brings, per engine: the number of its last migration (qrdesk-server
// --version). The engines' folders are numbered apart, so the two differ.
func SchemaVersion(postgres bool) int {
	if postgres {
		return sqlstore.SchemaVersion(migrations, postgresMigrations)
	}
	return sqlstore.SchemaVersion(migrations, centralMigrations)
}
