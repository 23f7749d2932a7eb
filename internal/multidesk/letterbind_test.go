package multidesk_test

import (
	"context"
	"strings"
	"testing"

	"qrdesk/central"
	"qrdesk/deskclient"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
	"qrdesk/server"
	"qrdesk/serverdb"
)

// TestUpgradeBindsLetters: stations enrolled by the first release have no
// letter. At the next open the server binds each the one letter its
// uploaded codes carry when that letter is free; a station that uploaded
// nothing gets its letter at its first upload; what cannot be bound is
// listed with the reason (station list, the Desks page).
func TestUpgradeBindsLetters(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(testing.TB) string) {
		ctx := context.Background()
		var path string
		h := centraltest.New(t, func(tb testing.TB) string { path = dbPath(tb); return path }, 0)
		tokens := map[string]string{}
		for _, st := range []struct{ name, letter string }{
			{"Desk 1", ""}, {"Desk 2", ""}, {"Desk 3", "C"}, {"Desk 4", ""}, {"Desk 5", ""},
		} {
			tokens[st.name] = h.Station(t, st.name, st.letter)
		}
		// What the first release stored: codes carrying the desk's letter,
		// uploaded by a station without one.
		uploadAsFirstRelease := func(name, letter string, n int) *centraltest.Desk {
			t.Helper()
			d := h.Desk(t, name, letter, "")
			var in []central.CodeIn
			for _, c := range d.Issue(t, n) {
				in = append(in, central.CodeIn{Code: c, CreatedAt: h.Now.Unix()})
			}
			if err := central.ValidateCodes(central.Station{Name: name, Letter: letter}, in); err != nil {
				t.Fatal(err)
			}
			st, err := h.DB.StationByToken(ctx, server.HashToken(tokens[name]))
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := h.DB.UploadBatch(ctx, st, in, h.Now.Unix()); err != nil {
				t.Fatal(err)
			}
			return d
		}
		d1 := uploadAsFirstRelease("Desk 1", "A", 3)
		uploadAsFirstRelease("Desk 2", "C", 2) // Desk 3 holds C
		uploadAsFirstRelease("Desk 5", "E", 1)
		uploadAsFirstRelease("Desk 5", "F", 1)

		db, err := serverdb.Open(ctx, path) // the upgraded server starts
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		letters := func() map[string]string {
			list, err := db.Stations(ctx)
			if err != nil {
				t.Fatal(err)
			}
			m := map[string]string{}
			for _, s := range list {
				m[s.Name] = s.Letter
			}
			return m
		}
		got := letters()
		for name, want := range map[string]string{"Desk 1": "A", "Desk 2": "", "Desk 3": "C", "Desk 4": "", "Desk 5": ""} {
			if got[name] != want {
				t.Errorf("after the upgrade %s has letter %q, want %q", name, got[name], want)
			}
		}
		unbound, err := db.Unbound(ctx)
		if err != nil {
			t.Fatal(err)
		}
		why := map[string]string{}
		for _, u := range unbound {
			why[u.Name] = u.Why()
			t.Logf("%s: %s", u.Name, u.Why())
		}
		for name, want := range map[string]string{
			"Desk 2": "its codes carry C, held by Desk 3",
			"Desk 4": "at its first upload",
			"Desk 5": "its codes carry letters E, F",
		} {
			if !strings.Contains(why[name], want) {
				t.Errorf("unbound %s: got %q, want it to say %q", name, why[name], want)
			}
		}
		if len(unbound) != 3 {
			t.Errorf("unbound: got %d stations, want 3 (Desk 2, 4, 5)", len(unbound))
		}

		// Desk 1 issues after the upgrade and syncs; Desk 4's first upload
		// binds its letter D.
		d1.Svc.Remote = deskclient.New(h.URL, tokens["Desk 1"])
		d1.Issue(t, 2)
		d1.Sync(t)
		d4 := h.Desk(t, "Desk 4", "D", tokens["Desk 4"])
		d4.Issue(t, 2)
		d4.Sync(t)
		if got := letters()["Desk 4"]; got != "D" {
			t.Errorf("after its first upload Desk 4 has letter %q, want D", got)
		}
		for letter, want := range map[string]int{"A": 5, "D": 2} {
			if n := centraltest.Count(t, db, `SELECT count(*) FROM codes WHERE station_id = ?`, letter); n != want {
				t.Errorf("codes of letter %s on the server: got %d, want %d", letter, n, want)
			}
		}
	})
}
