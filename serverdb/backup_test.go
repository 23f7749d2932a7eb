package serverdb

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestBackupWithoutPGDumpGivesTheRecipe: on a machine without pg_dump or
// pg_restore, backup and restore of a PostgreSQL database say what to
// install and give the commands to run where they are.
func TestBackupWithoutPGDumpGivesTheRecipe(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	dir := t.TempDir()
	var tool *ErrNoPGTool
	err := pgDump(context.Background(), "postgres://qrdesk@db/qrdesk", filepath.Join(dir, "b"))
	if !errors.As(err, &tool) || tool.Tool != "pg_dump" || !strings.Contains(err.Error(), "pg_dump --format=custom") || !strings.Contains(err.Error(), "apt install postgresql-client") {
		t.Errorf("backup without pg_dump: %v", err)
	}
	err = pgRestore(context.Background(), filepath.Join(dir, "b"), "postgres://qrdesk@db/qrdesk")
	if !errors.As(err, &tool) || tool.Tool != "pg_restore" || !strings.Contains(err.Error(), "restore --epoch-only") {
		t.Errorf("restore without pg_restore: %v", err)
	}
}
