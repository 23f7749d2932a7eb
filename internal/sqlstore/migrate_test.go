package sqlstore

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// Two migrations of one number (two branches each adding their next one,
// merged without renumbering) are refused before anything runs: the
// runner records numbers, so a database that ran one of them would
// silently never run the other.
func TestMigrateRefusesTwoMigrationsOfOneNumber(t *testing.T) {
	fsys := fstest.MapFS{
		"m/0001_init.sql":       {Data: []byte(`CREATE TABLE a (x INTEGER);`)},
		"m/0002_tokens.sql":     {Data: []byte(`CREATE TABLE b (x INTEGER);`)},
		"m/0002_code_order.sql": {Data: []byte(`CREATE TABLE c (x INTEGER);`)},
		"m/0003_after_both.sql": {Data: []byte(`CREATE TABLE d (x INTEGER);`)},
	}
	db, err := sql.Open("sqlite", DSN(filepath.Join(t.TempDir(), "db.sqlite"), 5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = Migrate(context.Background(), db, fsys, "m", false)
	want := "migrations m/0002_code_order.sql and m/0002_tokens.sql share the number 2"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Migrate: %v, want an error saying %q", err, want)
	}
	var tables int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('a', 'b', 'c', 'd')`).Scan(&tables); err != nil {
		t.Fatal(err)
	}
	if tables != 0 {
		t.Errorf("%d of the migrations ran, want none", tables)
	}
	if v, err := Versions(fsys, "m"); err == nil {
		t.Errorf("Versions: %v, want the same refusal", v)
	}
}
