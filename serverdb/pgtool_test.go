package serverdb

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakePGTool puts a pg_dump and a pg_restore on PATH that write their
// arguments and the PGPASSWORD they were given to dir/NAME.args and
// dir/NAME.env, and succeed.
func fakePGTool(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"pg_dump", "pg_restore"} {
		script := "#!/bin/sh\necho \"$@\" >> " + filepath.Join(dir, name+".args") +
			"\necho \"$PGPASSWORD\" >> " + filepath.Join(dir, name+".env") + "\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return dir
}

// TestPGToolsGetNoPasswordOnTheCommandLine: backup and restore of a
// PostgreSQL database hand pg_dump and pg_restore the password in
// PGPASSWORD, never in their arguments, which every local user reads in
// ps; in the user part of the address or as ?password= alike.
func TestPGToolsGetNoPasswordOnTheCommandLine(t *testing.T) {
	for _, dsn := range []string{
		"postgres://qrdesk:s3cr%40t@db.example:5432/qrdesk?sslmode=require",
		"postgresql://qrdesk@db.example/qrdesk?password=s3cr%40t&sslmode=require",
		"postgres://qrdesk:s3cr%40t@10.0.0.11:5432,10.0.0.12:5432/qrdesk?target_session_attrs=read-write&sslmode=require",
	} {
		t.Run(dsn[:14], func(t *testing.T) {
			dir := fakePGTool(t)
			file := filepath.Join(dir, "b.backup")
			if err := pgDump(context.Background(), dsn, file); err != nil {
				t.Fatal(err)
			}
			if err := pgRestore(context.Background(), file, dsn); err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{"pg_dump", "pg_restore"} {
				args, _ := os.ReadFile(filepath.Join(dir, name+".args"))
				env, _ := os.ReadFile(filepath.Join(dir, name+".env"))
				if strings.Contains(string(args), "s3cr") {
					t.Errorf("%s's command line holds the password: %s", name, args)
				}
				if !strings.Contains(string(args), "--dbname=postgres") || !strings.Contains(string(args), "sslmode=require") {
					t.Errorf("%s was not given the database (without its password): %s", name, args)
				}
				if got := strings.TrimSpace(string(env)); !strings.HasSuffix(got, "s3cr@t") {
					t.Errorf("%s's PGPASSWORD = %q, want s3cr@t", name, got)
				}
			}
		})
	}
}

func TestRedactDSN(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://qrdesk:s3cret@db/qrdesk":          "postgres://qrdesk:xxxxx@db/qrdesk",
		"postgres://qrdesk@db/qrdesk?password=s3cret": "postgres://qrdesk@db/qrdesk?password=xxxxx",
		"postgres://qrdesk@db/qrdesk":                 "postgres://qrdesk@db/qrdesk",
		"/var/lib/qrdesk-server/server.db":            "/var/lib/qrdesk-server/server.db",
	} {
		if got := RedactDSN(in); got != want {
			t.Errorf("RedactDSN(%q) = %q, want %q", in, got, want)
		}
	}
}
