// Package serverdbtest is the test kit of the server's database for the
// tests outside serverdb: named questions about what the server holds
// ("the status of label X", "the redemptions of label X", "how many
// conflicts"), so that a change of the schema edits this file and not the
// tests; and a handle on a database that refuses writes.
package serverdbtest

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"

	"qrdesk/central"
	"qrdesk/protocol"
	"qrdesk/serverdb"
)

// Server is a server database as the tests ask it; a question that fails
// fails the test.
type Server struct {
	tb testing.TB
	db *serverdb.DB
}

// Of asks db.
func Of(tb testing.TB, db *serverdb.DB) *Server { return &Server{tb: tb, db: db} }

// Label is one label as the server holds it.
type Label struct {
	Code, Status string
	UsedStation  string
	UsedOperator string
	UsedAt       int64
	CreatedAt    int64
	ExpireAt     int64
	Ref          string
	Batch        int64
}

const labelColumns = `code, status, used_station, used_operator, used_at, created_at, expire_at, ref, batch`

func (l *Label) fields() []any {
	return []any{&l.Code, &l.Status, &l.UsedStation, &l.UsedOperator, &l.UsedAt, &l.CreatedAt, &l.ExpireAt, &l.Ref, &l.Batch}
}

// Label is the label code at the server: the zero Label (Status "") if the
// server has none.
func (s *Server) Label(code string) Label {
	s.tb.Helper()
	var l Label
	if !s.row(`SELECT `+labelColumns+` FROM codes WHERE code = ?`, []any{code}, l.fields()...) {
		return Label{}
	}
	return l
}

// Status is the label's status at the server (unused, used, expired,
// disabled), "" if the server has no such label.
func (s *Server) Status(code string) string {
	s.tb.Helper()
	return s.Label(code).Status
}

// StatusAndStation is the label's status at the server and the station
// that used it; the test fails if the server has no such label.
func (s *Server) StatusAndStation(code string) (status, station string) {
	s.tb.Helper()
	l := s.Label(code)
	if l.Code == "" {
		s.tb.Fatalf("the server has no label %s", code)
	}
	return l.Status, l.UsedStation
}

// Labels is every label at the server, by code.
func (s *Server) Labels() []Label {
	s.tb.Helper()
	var out []Label
	s.each(`SELECT `+labelColumns+` FROM codes ORDER BY code`, nil, func(scan func(...any) error) error {
		var l Label
		err := scan(l.fields()...)
		out = append(out, l)
		return err
	})
	return out
}

// LabelSite is the name of the site the label belongs to.
func (s *Server) LabelSite(code string) string {
	s.tb.Helper()
	var name string
	if !s.row(`SELECT s.name FROM codes c JOIN sites s ON s.id = c.site WHERE c.code = ?`, []any{code}, &name) {
		s.tb.Fatalf("the server has no label %s", code)
	}
	return name
}

// CountLabels is how many labels the server holds with the status, or
// every label for "".
func (s *Server) CountLabels(status string) int {
	s.tb.Helper()
	if status == "" {
		return s.Count(`SELECT count(*) FROM codes`)
	}
	return s.Count(`SELECT count(*) FROM codes WHERE status = ?`, status)
}

// CountLabel is 1 if the server holds label code with the status, else 0.
func (s *Server) CountLabel(code, status string) int {
	s.tb.Helper()
	if s.Status(code) == status {
		return 1
	}
	return 0
}

// Event is one event as the server recorded it.
type Event struct {
	EventID   string
	Station   string
	Kind      protocol.Kind
	Code      string
	At        int64 // the desk's clock
	DecidedAt int64 // the time the server decided it at
	Flags     central.Flags
}

// Where picks events: each field given must match.
type Where struct {
	EventID, Code, Station string
	Kind                   protocol.Kind
}

// Events is the events Where picks, in the order the server received
// them.
func (s *Server) Events(w Where) []Event {
	s.tb.Helper()
	var conds []string
	var args []any
	for _, c := range []struct{ col, v string }{{"event_id", w.EventID}, {"code", w.Code}, {"kind", string(w.Kind)}, {"station", w.Station}} {
		if c.v != "" {
			conds = append(conds, c.col+" = ?")
			args = append(args, c.v)
		}
	}
	query := `SELECT event_id, station, kind, code, at, decided_at, flags FROM events`
	if len(conds) > 0 {
		query += ` WHERE ` + strings.Join(conds, " AND ")
	}
	var out []Event
	s.each(query+` ORDER BY id`, args, func(scan func(...any) error) error {
		var e Event
		err := scan(&e.EventID, &e.Station, &e.Kind, &e.Code, &e.At, &e.DecidedAt, &e.Flags)
		out = append(out, e)
		return err
	})
	return out
}

// Event is the first event Where picks; the test fails if there is none.
func (s *Server) Event(w Where) Event {
	s.tb.Helper()
	events := s.Events(w)
	if len(events) == 0 {
		s.tb.Fatalf("the server has no event %+v", w)
	}
	return events[0]
}

// Conflicts is how many conflicts the server recorded, by label.
func (s *Server) Conflicts() map[string]int {
	s.tb.Helper()
	out := map[string]int{}
	s.each(`SELECT code, count(*) FROM conflicts GROUP BY code`, nil, func(scan func(...any) error) error {
		var code string
		var n int
		err := scan(&code, &n)
		out[code] = n
		return err
	})
	return out
}

// ConflictsBetween is how many conflicts the server recorded between
// labels x and y (a label and its replacement), either way round.
func (s *Server) ConflictsBetween(x, y string) int {
	s.tb.Helper()
	return s.Count(`SELECT count(*) FROM conflicts WHERE (code = ? AND second_code = ?) OR (code = ? AND second_code = ?)`, x, y, y, x)
}

// CountConflicts is how many conflicts the server recorded.
func (s *Server) CountConflicts() int {
	s.tb.Helper()
	return s.Count(`SELECT count(*) FROM conflicts`)
}

// FeedPositions is the places of the feed's changes that have one, in
// order.
func (s *Server) FeedPositions() []int64 {
	s.tb.Helper()
	var out []int64
	s.each(`SELECT pos FROM changes WHERE pos IS NOT NULL ORDER BY pos`, nil, func(scan func(...any) error) error {
		var pos int64
		err := scan(&pos)
		out = append(out, pos)
		return err
	})
	return out
}

// SchemaVersion is the newest migration applied to the database.
func (s *Server) SchemaVersion() int {
	s.tb.Helper()
	return s.Count(`SELECT max(version) FROM schema_migrations`)
}

// Rows is every row of table, the columns named, each as the driver
// reads it: for comparing a table before and after an upgrade.
func (s *Server) Rows(table string, columns ...string) [][]any {
	s.tb.Helper()
	var out [][]any
	s.each(`SELECT `+strings.Join(columns, ", ")+` FROM `+table, nil, func(scan func(...any) error) error {
		row := make([]any, len(columns))
		ptrs := make([]any, len(columns))
		for i := range row {
			ptrs[i] = &row[i]
		}
		err := scan(ptrs...)
		out = append(out, row)
		return err
	})
	return out
}

// Count runs a query of one number (a count, a sum, a column of one row),
// written with ? placeholders, on either engine. A question asked in more
// than one test deserves a name of its own above.
func (s *Server) Count(query string, args ...any) int {
	s.tb.Helper()
	var n sql.NullInt64
	if !s.row(query, args, &n) {
		s.tb.Fatalf("%s: no row", query)
	}
	return int(n.Int64)
}

// row scans the first row of query into dest; false if there is none.
func (s *Server) row(query string, args []any, dest ...any) bool {
	s.tb.Helper()
	found := false
	s.each(query, args, func(scan func(...any) error) error {
		if found {
			return nil
		}
		found = true
		return scan(dest...)
	})
	return found
}

// each calls f for every row of query.
func (s *Server) each(query string, args []any, f func(scan func(...any) error) error) {
	s.tb.Helper()
	rows, err := s.db.Read(context.Background(), query, args...)
	if err != nil {
		s.tb.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := f(rows.Scan); err != nil {
			s.tb.Fatalf("%s: %v", query, err)
		}
	}
	if err := rows.Err(); err != nil && !errors.Is(err, sql.ErrNoRows) {
		s.tb.Fatalf("%s: %v", query, err)
	}
}

// OpenRefusingWrites opens the server database at path (made by
// serverdb.Open) so that it answers every read and refuses every write
// (serverdb.OpenReadOnly), closed when the test ends.
func OpenRefusingWrites(tb testing.TB, path string) *serverdb.DB {
	tb.Helper()
	db, err := serverdb.OpenReadOnly(context.Background(), path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}
