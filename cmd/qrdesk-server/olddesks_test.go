package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestOldDesksFlag: serve --old-desks takes redeem (the roll-out window,
// the default) or refuse; anything else is a usage error that says both,
// before the server starts.
func TestOldDesksFlag(t *testing.T) {
	var out, errOut bytes.Buffer
	db := filepath.Join(t.TempDir(), "server.db")
	code := run(context.Background(), []string{"serve", "--old-desks", "sometimes", "--db", db, "--listen", "127.0.0.1:0"}, &out, &errOut, now)
	if code != 2 || !strings.Contains(errOut.String(), "redeem") || !strings.Contains(errOut.String(), "refuse") {
		t.Fatalf("serve --old-desks sometimes: exit %d, %q; want 2 naming redeem and refuse", code, errOut.String())
	}
}
