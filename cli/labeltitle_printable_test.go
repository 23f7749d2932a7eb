package cli

import (
	"strings"
	"testing"
)

// TestLabelTitleTheFontsCannotPrintIsRefused: 'qrdesk settings
// --label-title' takes a title in any script the label fonts hold and
// refuses one holding a character none holds when it is given, naming it
// (the setting is unchanged), rather than at the next print.
func TestLabelTitleTheFontsCannotPrintIsRefused(t *testing.T) {
	s := newStation(t)
	if code, _, errOut := s.run(t, "settings", "--label-title", "提货码 Müller Ωμέγα Щ"); code != ExitOK {
		t.Fatalf("a title in four scripts: exit %d %q", code, errOut)
	}
	code, _, errOut := s.run(t, "settings", "--label-title", "Box ☃")
	if code == ExitOK || !strings.Contains(errOut, "U+2603") || !strings.Contains(errOut, "label title") {
		t.Fatalf("--label-title \"Box ☃\": exit %d, stderr %q; want a refusal naming U+2603", code, errOut)
	}
	var set map[string]any
	s.mustJSON(t, &set, "settings")
	if got := set["label_title"]; got != "提货码 Müller Ωμέγα Щ" {
		t.Fatalf("the title is %v after the refusal", got)
	}
}
