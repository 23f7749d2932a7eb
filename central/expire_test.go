package central

import (
	"strings"
	"testing"
	"time"
)

// A close's expiry is applied only to a label of the closing desk's site
// whose day has begun on the server's clock.
func TestCloseExpiryRefusal(t *testing.T) {
	now := time.Date(2026, 11, 29, 23, 30, 0, 0, time.UTC)
	tests := []struct {
		name  string
		label ClosedLabel
		site  string
		want  string // part of the reason; "" applied
	}{
		{"today, own site", ClosedLabel{Day: "2026-11-29", Site: "main"}, "main", ""},
		{"yesterday", ClosedLabel{Day: "2026-11-28", Site: "main"}, "main", ""},
		{"tomorrow", ClosedLabel{Day: "2026-11-30", Site: "main"}, "main", "has not begun at the server (the server's day is 2026-11-29)"},
		{"another site", ClosedLabel{Day: "2026-11-29", Site: "main"}, "North", "label of site main"},
		{"another site, tomorrow", ClosedLabel{Day: "2026-11-30", Site: "main"}, "North", "label of site main"},
		{"no date printed", ClosedLabel{Site: "main"}, "main", ""},
		{"closer of no site (older records)", ClosedLabel{Day: "2026-11-29", Site: "main"}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CloseExpiryRefusal(tt.label, tt.site, now)
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("CloseExpiryRefusal(%+v, %q) = %q, want %q", tt.label, tt.site, got, tt.want)
			}
		})
	}
}
