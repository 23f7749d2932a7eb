package cli

import (
	"strings"
	"testing"
)

// TestOperatorNameTheBadgeCannotPrintIsRefused: an operator's name is
// printed on their badge, so a name in any script the label fonts hold is
// added ("Zoë Łódź", "Αθηνά", "Мария", "Nguyễn", "王芳"), and one holding a
// character none holds is refused when it is typed, naming the character,
// nothing added. It was added, and the badge sheet then refused to print,
// blaming the "label title".
func TestOperatorNameTheBadgeCannotPrintIsRefused(t *testing.T) {
	s := newStation(t)
	for _, name := range []string{"Zoë Łódź", "Αθηνά", "Мария", "Nguyễn Văn", "王芳"} {
		if code, _, errOut := s.runStdin(t, "4321\n", "operators", "add", name); code != ExitOK {
			t.Fatalf("add %q: exit %d %q", name, code, errOut)
		}
	}
	code, _, errOut := s.runStdin(t, "4321\n", "operators", "add", "Zoë ☃")
	if code == ExitOK || !strings.Contains(errOut, "U+2603") || !strings.Contains(errOut, "the name holds") {
		t.Fatalf("add \"Zoë ☃\": exit %d, stderr %q; want a refusal naming U+2603 in the name", code, errOut)
	}
	var ops []operatorOut
	s.mustJSON(t, &ops, "operators", "list")
	if len(ops) != 5 {
		t.Fatalf("%d operators after the refusal, want 5: %+v", len(ops), ops)
	}
	if code, _, errOut := s.run(t, "print", "--badges", "-o", t.TempDir()+"/badges.pdf"); code != ExitOK {
		t.Fatalf("the badges of names in five scripts: exit %d %q", code, errOut)
	}
}
