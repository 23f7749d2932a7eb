package cli

import (
	"strings"
	"testing"

	"qrdesk/internal/testclock"
)

// TestStatsCountTheLabelsOfTheDay: 'qrdesk stats' counted issued by the
// day the labels were made and unused by their label date, so labels made
// today for yesterday showed as issued but never as unused. "for day" and
// "unused" now count the same labels (today's date, issued here on any
// day), and "issued" says it counts the labels made that day.
func TestStatsCountTheLabelsOfTheDay(t *testing.T) {
	s := newStation(t)
	var out issueOut
	s.mustJSON(t, &out, "issue", "--count", "3", "--date", testclock.Date(-1))
	s.mustJSON(t, &out, "issue", "--count", "4")
	var v struct{ Outcome string }
	s.mustJSON(t, &v, "redeem", out.Codes[0])
	var st struct {
		Issued, Redeemed, Unused int
		ForDay                   int `json:"issued_for_day"`
	}
	s.mustJSON(t, &st, "stats")
	if st.ForDay != 4 || st.Unused != 3 || st.Issued != 7 || st.Redeemed != 1 {
		t.Fatalf("stats %+v: want 4 labels for today, 3 of them unused, 7 made today, 1 redeemed", st)
	}
	_, text, _ := s.run(t, "stats")
	for _, want := range []string{"for day   4 (labels of the day", "unused    3 (of those", "issued    7 (labels made that day, for any day)"} {
		if !strings.Contains(text, want) {
			t.Errorf("'qrdesk stats' does not say %q:\n%s", want, text)
		}
	}
}
