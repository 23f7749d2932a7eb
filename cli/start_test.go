package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestStartCountsFromOne: --start N prints from position N, as the
// window's "Start at position" does; 0 is refused with the reason.
func TestStartCountsFromOne(t *testing.T) {
	needTool(t, "pdftotext")
	s := newStation(t)
	if code, _, errOut := s.run(t, "issue", "--count", "21", "--quiet"); code != 0 {
		t.Fatal(errOut)
	}
	dir := t.TempDir()
	// L7160: 21 a sheet. From position 11, 11 labels fit the first page and
	// 10 go on a second.
	if code, out, errOut := s.run(t, "print", "--batch", "1", "--template", "L7160", "--start", "11", "-o", filepath.Join(dir, "a.pdf")); code != 0 || !strings.Contains(out, "(2 pages)") {
		t.Fatalf("--start 11: exit %d %q %s, want 2 pages (positions 11 to 21, then 10)", code, out, errOut)
	}
	if code, out, errOut := s.run(t, "print", "--batch", "1", "--template", "L7160", "--start", "12", "--reprint", "-o", filepath.Join(dir, "b.pdf")); code != 0 || !strings.Contains(out, "(2 pages)") {
		t.Fatalf("--start 12: exit %d %q %s", code, out, errOut)
	}
	if code, out, errOut := s.run(t, "print", "--batch", "1", "--template", "L7160", "--start", "1", "--reprint", "-o", filepath.Join(dir, "c.pdf")); code != 0 || !strings.Contains(out, "(1 page)") {
		t.Fatalf("--start 1: exit %d %q %s, want the 21 labels on 1 page", code, out, errOut)
	}
	if code, _, errOut := s.run(t, "print", "--batch", "1", "--template", "L7160", "--start", "0", "--reprint", "-o", filepath.Join(dir, "d.pdf")); code != ExitUsage || !strings.Contains(errOut, "count from 1") {
		t.Fatalf("--start 0: exit %d %q", code, errOut)
	}
	if code, _, errOut := s.run(t, "print", "--batch", "1", "--template", "L7160", "--start", "22", "--reprint", "-o", filepath.Join(dir, "e.pdf")); code == 0 || !strings.Contains(errOut, "use 1 to 21") {
		t.Fatalf("--start 22: exit %d %q", code, errOut)
	}
}
