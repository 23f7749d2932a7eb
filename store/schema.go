package store

import "qrdesk/internal/sqlstore"

// SchemaVersion is the desk database's schema version this build brings:
// the number of its last migration (qrdesk version; sqlstore.SchemaVersion).
func SchemaVersion() int { return sqlstore.SchemaVersion(migrations, deskMigrations) }
