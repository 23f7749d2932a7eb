package printing

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestRefPrintedWhereThereIsRoom: the batch's ref is printed on the label
// (in the PDF, as text a clerk reads) where the template has room; a
// template with "no_ref" leaves it off, and a label too small for it is
// printed without it rather than refused.
func TestRefPrintedWhereThereIsRoom(t *testing.T) {
	hasLine := func(t *testing.T, tmpl Template, l Label) bool {
		t.Helper()
		lays, err := layoutAll([]Label{l}, Options{Template: tmpl})
		if err != nil {
			t.Fatalf("%s: %v", tmpl.Name, err)
		}
		for _, ln := range lays[0].Lines {
			if ln.Text == l.Ref {
				return true
			}
		}
		return false
	}
	l := testLabels(t, 1, "")[0]
	l.Ref = "ROUTE-7"
	t.Run("Room", func(t *testing.T) {
		tmpl, _ := FindTemplate("", "L7160")
		if !hasLine(t, tmpl, l) {
			t.Fatal("L7160: the ref is not on the label")
		}
		needTools(t, "pdftotext")
		var buf bytes.Buffer
		if err := WritePDF(&buf, []Label{l}, Options{Template: tmpl, Created: time.Unix(0, 0)}); err != nil {
			t.Fatal(err)
		}
		x, y := tmpl.LabelRect(0)
		if got := textIn(t, buf.Bytes(), 1, tmpl, x, y); !strings.Contains(got, "ROUTE-7") {
			t.Fatalf("the PDF's label reads %q: no ref", got)
		}
	})
	t.Run("TemplateSaysNo", func(t *testing.T) {
		tmpl, _ := FindTemplate("", "L7160")
		tmpl.NoRef = true
		if hasLine(t, tmpl, l) {
			t.Fatal("a no_ref template printed the ref")
		}
	})
	t.Run("NoRoom", func(t *testing.T) {
		tmpl, _ := FindTemplate("", "L7651")
		long := l
		long.Ref = strings.Repeat("ROUTE-7 ", 8)
		if hasLine(t, tmpl, long) {
			t.Fatal("a 64-character ref fits a 38 mm label?")
		}
	})
}
