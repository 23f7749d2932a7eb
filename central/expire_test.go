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

func TestCloseZoneRefusal(t *testing.T) {
	a := DeskZone{Station: "Desk A", Offset: 0}
	far := DeskZone{Station: "Desk B", Offset: 14 * 3600}
	west := DeskZone{Station: "Desk W", Offset: -3 * 3600}
	tests := []struct {
		name   string
		closer DeskZone
		others []DeskZone
		want   string
	}{
		{"alone in its site", far, nil, ""},
		{"same zone as the others", a, []DeskZone{{Station: "Desk C", Offset: 0}}, ""},
		{"behind the others: the date is over everywhere", a, []DeskZone{far}, ""},
		{"ahead of one desk of its site", far, []DeskZone{a}, "this desk keeps UTC+14:00, 14 hours ahead of Desk A of its site (UTC+00:00)"},
		{"names the desk furthest behind", far, []DeskZone{a, west}, "17 hours ahead of Desk W of its site (UTC-03:00)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CloseZoneRefusal(tt.closer, tt.others)
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("CloseZoneRefusal = %q, want %q", got, tt.want)
			}
		})
	}
	if got := FormatZone(-(9*3600 + 30*60)); got != "UTC-09:30" {
		t.Errorf("FormatZone = %q", got)
	}
}
