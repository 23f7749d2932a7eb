package cli

import (
	"testing"
)

// TestSearchFindsPartOfARef: 'qrdesk search' finds a batch by part of its
// ref, whatever the case of its Latin letters; % typed is a percent sign.
func TestSearchFindsPartOfARef(t *testing.T) {
	s := newStation(t)
	var muller, other issueOut
	s.mustJSON(t, &muller, "issue", "--count", "2", "--ref", "Müller Straße 5, Berlin")
	s.mustJSON(t, &other, "issue", "--count", "1", "--ref", "Rabatt 50 Prozent")
	for _, tc := range []struct {
		query string
		want  int
	}{{"müller", 2}, {"STRAßE 5", 2}, {"50%", 0}, {"rabatt", 1}} {
		var got []struct{ Code, Ref string }
		s.mustJSON(t, &got, "search", tc.query)
		if len(got) != tc.want {
			t.Errorf("qrdesk search %q found %d labels %v, want %d", tc.query, len(got), got, tc.want)
		}
	}
}
