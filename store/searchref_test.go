package store

import (
	"context"
	"testing"

	"qrdesk/app"
)

// TestSearchFindsPartOfARef: a batch was found by its whole ref only, so
// "Müller" did not find the batch whose ref is "Müller Straße 5, Berlin".
// Part of a ref finds it, without regard to case for Latin letters (ü and
// Ü, ß typed as written); % and _ typed by the clerk are letters, not SQL
// wildcards.
func TestSearchFindsPartOfARef(t *testing.T) {
	ctx := context.Background()
	svc, _, _ := mustOpen(t)
	issue := func(ref string, n int) []app.Code {
		t.Helper()
		_, codes, err := svc.Issue(ctx, app.IssueRequest{Count: n, Ref: ref})
		if err != nil {
			t.Fatal(err)
		}
		return codes
	}
	muller := issue("Müller Straße 5, Berlin", 2)
	percent := issue("Rabatt 50% Öl_Lager", 1)
	other := issue("Schmidt Weg 1", 1)
	issue("Rabatt 50 Öl Lager", 1) // what % or _ as wildcards would find too
	for _, tc := range []struct {
		text string
		want []app.Code
	}{
		{"Müller", muller},
		{"müller", muller},
		{"MÜLLER STRASSE", nil}, // ß is not ss: a ref is matched as written
		{"MÜLLER STRAßE", muller},
		{"straße 5", muller},
		{"50%", percent},
		{"öl_lager", percent},
		{"schmidt", other},
		{"Müller Straße 5, Berlin", muller},
		{"Meier", nil},
	} {
		t.Run(tc.text, func(t *testing.T) {
			got, err := svc.Search(ctx, app.SearchQuery{Text: tc.text, Limit: 50})
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]bool{}
			for _, c := range tc.want {
				want[c.String()] = true
			}
			found := 0
			for _, r := range got {
				if !want[r.Code] {
					t.Errorf("%q found %s (ref %q)", tc.text, r.Code, r.Ref)
					continue
				}
				found++
			}
			if found != len(tc.want) {
				t.Fatalf("%q found %d of the %d labels it should", tc.text, found, len(tc.want))
			}
		})
	}
}
