package serverdb

import (
	"context"
	"testing"
)

// openTestDB opens the server database of a testpg.Engines run (a new
// SQLite file or PostgreSQL database), closed when the test ends.
func openTestDB(t *testing.T, dbPath func(testing.TB) string) *DB {
	t.Helper()
	c, err := Open(context.Background(), dbPath(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}
