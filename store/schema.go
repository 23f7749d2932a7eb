package store

import "qrdesk/internal/sqlstore"

// SchemaVersion is the desk database's schema version this build brings:
// the number of its migrations (qrdesk version).
func SchemaVersion() int { return sqlstore.SchemaVersion(migrations, deskMigrations) }
