package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestOneIsSingular: the command line says "1 code", "1 label", "1 page",
// never "1 codes" (README's replacement example printed "1 labels").
func TestOneIsSingular(t *testing.T) {
	s := newStation(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"issue", "--count", "1", "--quiet"}, "batch 1: 1 code for "},
		{[]string{"print", "--batch", "1", "--template", "L7160", "-o", filepath.Join(dir, "one.pdf")}, "job 1: 1 label printed on L7160 (1 page)"},
		{[]string{"export", "-o", filepath.Join(dir, "codes.csv")}, "1 code written to "},
		{[]string{"print", "--badges", "-o", filepath.Join(dir, "badges.pdf")}, "1 badge on L7160"},
	} {
		if tc.args[1] == "--badges" {
			s.runStdin(t, "4321\n", "operators", "add", "--supervisor", "wang")
		}
		code, out, errOut := s.run(t, tc.args...)
		if code != 0 || !strings.Contains(out, tc.want) {
			t.Errorf("qrdesk %s: exit %d %q %s, want %q", strings.Join(tc.args, " "), code, out, errOut, tc.want)
		}
	}
}
