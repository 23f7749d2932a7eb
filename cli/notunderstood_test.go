package cli

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSyncReportsChangesNotUnderstood: a newer server's feed holds a
// change of a kind this desk does not know and one that leaves a label in
// a status it does not know. 'qrdesk sync' still succeeds and goes on past
// them, but says how many it did not understand, the latest, and what to
// do (--json too); the count is kept, not counted again at the next sync,
// and the desk's report tells the server (the dashboard's Desks page).
func TestSyncReportsChangesNotUnderstood(t *testing.T) {
	cs := buildServer(t)
	token := cs.addStation(t, "Desk 1", "A")
	cs.start(t)
	s := newStation(t)
	s.run(t, "settings", "--station-name", "Desk 1")
	os.WriteFile(filepath.Join(s.dir, "sync.json"), []byte(fmt.Sprintf(`{"server":"http://%s","token":%q}`, cs.addr, token)), 0o600)
	var issued issueOut
	s.mustJSON(t, &issued, "issue", "--count", "3")
	if code, out, errOut := s.run(t, "sync"); code != 0 || strings.Contains(out, "understand") {
		t.Fatalf("first sync: exit %d\n%s%s", code, out, errOut)
	}

	// What a newer server writes in its feed, then a change this desk knows.
	cs.stop()
	db, err := sql.Open("sqlite", cs.db)
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range []struct{ kind, code, data string }{
		{"retag", issued.Codes[0], `{"at":1,"label":"blue"}`},
		{"disable", issued.Codes[1], `{"at":1,"status":"archived","reason":"season over"}`},
		{"disable", issued.Codes[2], `{"at":1,"status":"disabled","reason":"torn"}`},
	} {
		if _, err := db.Exec(`INSERT INTO changes (kind, code, station, data, tag) VALUES (?, ?, 'Desk 9', ?, 'newer')`, ch.kind, ch.code, ch.data); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	cs.start(t)

	code, out, errOut := s.run(t, "sync")
	if code != ExitOK {
		t.Fatalf("sync with changes it does not understand: exit %d (want 0: the rest synced)\n%s", code, errOut)
	}
	for _, want := range []string{
		"warning: 2 changes from the server this desk does not understand",
		"upgrade qrdesk at this desk",
		`a disable change that leaves the label "archived" on ` + issued.Codes[1],
	} {
		if !strings.Contains(out, want) {
			t.Errorf("sync output does not say %q:\n%s", want, out)
		}
	}
	logged, _ := os.ReadFile(filepath.Join(s.dir, "qrdesk.log"))
	if !strings.Contains(string(logged), "does not understand") || !strings.Contains(string(logged), `"kind":"retag"`) {
		t.Errorf("qrdesk.log does not name the change of kind retag:\n%s", logged)
	}
	if n := queryInt(t, s.openDB(t), `SELECT count(*) FROM codes WHERE status = 'disabled' AND code = ?`, issued.Codes[2]); n != 1 {
		t.Errorf("the change after them was not applied (%s not disabled)", issued.Codes[2])
	}
	var st struct {
		NotUnderstood int `json:"not_understood"`
	}
	s.mustJSON(t, &st, "sync")
	if st.NotUnderstood != 2 {
		t.Errorf("sync --json: not_understood %d after a second sync, want 2 (kept, not counted again)", st.NotUnderstood)
	}

	// The desk's report told the server, for the dashboard's Desks page.
	server, err := sql.Open("sqlite", "file:"+cs.db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	var n int
	if err := server.QueryRow(`SELECT not_understood FROM desk_status WHERE station = 'Desk 1' ORDER BY received_at DESC, at DESC LIMIT 1`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("the server has the desk's report of %d changes not understood, want 2", n)
	}
}
