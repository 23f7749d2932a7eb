package multidesk_test

import (
	"testing"

	"qrdesk/internal/testpg"
)

// TestMain: one PostgreSQL cluster for the package; each test takes fresh
// databases and SQLite files of its own, so every test here runs in
// parallel (t.Parallel). Alone they mostly wait (for a server's answer, a
// long poll, a desk's sync), about half a core for 163 s one after another.
func TestMain(m *testing.M) { testpg.Main(m) }
