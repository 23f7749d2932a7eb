package store

import (
	"context"
	"testing"

	"qrdesk/app"
)

// A clerk searches for the serial as the label prints it: station letter
// and number.
func TestSearchByPrintedSerial(t *testing.T) {
	svc, _, _ := mustOpen(t)
	ctx := context.Background()
	_, a := mustIssue(t, svc, app.IssueRequest{Count: 12})
	if _, err := svc.UpdateSettings(ctx, map[string]string{"station_id": "B"}, "test"); err != nil {
		t.Fatal(err)
	}
	_, b := mustIssue(t, svc, app.IssueRequest{Count: 10})
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"A0007", []string{a[6].String()}},
		{"a-0007", []string{a[6].String()}},
		{"B0007", []string{b[6].String()}},
		{"0007", []string{b[6].String(), a[6].String()}}, // the number alone finds both desks'
		{"C0007", nil},
	} {
		recs, err := svc.Search(ctx, app.SearchQuery{Text: tc.query, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range recs {
			got = append(got, r.Code)
		}
		if len(got) != len(tc.want) || (len(got) > 0 && (got[0] != tc.want[0] || got[len(got)-1] != tc.want[len(tc.want)-1])) {
			t.Errorf("search %q found %v, want %v", tc.query, got, tc.want)
		}
	}
}
