package web_test

import (
	"context"
	"strings"
	"testing"

	"qrdesk/central"
	"qrdesk/internal/testpg"
	"qrdesk/server"
)

// TestDesksPageShowsUnboundLetters: a desk from the first release whose
// letter the upgrade could not bind shows why on the Desks page.
func TestDesksPageShowsUnboundLetters(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		s := newSite(t, dbPath(t), false)
		s.station(t, "Desk 3", "A")
		s.station(t, "Desk 4", "")
		token := s.station(t, "Desk 2", "") // uploaded letter A codes before the upgrade
		var in []central.CodeIn
		for _, c := range s.issue(t, 2) {
			in = append(in, central.CodeIn{Code: c, CreatedAt: 1})
		}
		if err := central.ValidateCodes(central.Station{Name: "Desk 2", Letter: "A"}, in); err != nil {
			t.Fatal(err)
		}
		st, err := s.db.StationByToken(ctx, server.HashToken(token))
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.db.UploadBatch(ctx, st, in, 1); err != nil {
			t.Fatal(err)
		}
		v := s.visitor()
		v.signIn(t, "root", s.admin(t, "root"))
		_, _, body := v.get(t, "/desks")
		for _, want := range []string{
			"no letter: its codes carry A, held by Desk 3",
			"no letter yet: it gets the letter of its codes at its first upload, if free",
		} {
			if !strings.Contains(body, want) {
				t.Errorf("the Desks page does not say %q", want)
			}
		}
	})
}
