package central

// Activity is the server's state as its metrics show it: read at each
// scrape, so it holds counts and one row per desk, never per code.
type Activity struct {
	// FeedPosition is the highest feed position ever given.
	FeedPosition int64
	// Conflicts is how many conflicts the database holds; BySite counts
	// them by the site of their label (site name → count).
	Conflicts       int64
	ConflictsBySite map[string]int64
	// Sites are the names of the deployment's sites.
	Sites []string
	// EventsWaiting is how many events wait in this process for the next
	// commit (SQLite's group commit; always 0 on PostgreSQL).
	EventsWaiting int
	Desks         []DeskActivity
	// Backup is the record of the database's backups.
	Backup BackupRecord
}

// DeskActivity is what the database knows of one desk's contact: how far
// it has read the feed and when it last said so (0: never).
type DeskActivity struct {
	ID          int64
	Name        string
	Site        string // its site's name
	Revoked     bool
	FeedAck     int64
	FeedAckedAt int64
}

// BackupRecord is what the database knows of its backups: when the last
// one succeeded and when one last failed, and why (Unix seconds, 0:
// never). The backup command records them (qrdesk-server backup); the
// metrics export them.
type BackupRecord struct {
	LastSuccess int64
	LastFailure int64
	LastError   string // the last failure's message
}

// Failed reports whether the latest backup attempt failed.
func (b BackupRecord) Failed() bool { return b.LastFailure > b.LastSuccess }
