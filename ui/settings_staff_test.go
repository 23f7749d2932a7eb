package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// TestSettingsNamesThePrinterIssueUses: with no printer set, Issue & print
// chooses the first printer the computer lists, and the Settings screen
// says that printer, not "no printer"; with none listed both say to save
// a PDF.
func TestSettingsNamesThePrinterIssueUses(t *testing.T) {
	defer func(old func() ([]string, error)) { listPrinters = old }(listPrinters)
	listPrinters = func() ([]string, error) { return []string{"Office", "Back"}, nil }
	h := newHarness(t)
	f := h.ui.settings.fields["printer"]
	h.settle() // the printers are listed
	var placeholder, chosen, value string
	fyne.DoAndWait(func() { placeholder, chosen, value = f.combo.PlaceHolder, h.ui.issue.printer.Selected, f.value() })
	if chosen != "Office" {
		t.Fatalf("Issue & print chose %q, want Office (the first listed)", chosen)
	}
	if value != "" || !strings.Contains(placeholder, "Office") {
		t.Fatalf("Settings shows %q with placeholder %q: want the setting empty and the placeholder naming Office", value, placeholder)
	}

	listPrinters = func() ([]string, error) { return nil, nil }
	h2 := newHarness(t)
	f2 := h2.ui.settings.fields["printer"]
	h2.settle()
	fyne.DoAndWait(func() { placeholder, chosen = f2.combo.PlaceHolder, h2.ui.issue.printer.Selected })
	if chosen != "" || placeholder != T("(no printer: save a PDF)") {
		t.Fatalf("no printers: Issue & print chose %q, Settings says %q", chosen, placeholder)
	}
}

// TestOperatorSettingUnusedWithOperators: once the station has operators,
// who signed in is named on every action, so the Settings screen's old
// Operator field is locked and says it is not used, in one line under it
// (the field's help and the note were two hints, one under the other); a
// station without operators keeps it as before.
func TestOperatorSettingUnusedWithOperators(t *testing.T) {
	h := newSignInHarness(t, false)
	f := h.ui.settings.fields["operator"]
	help := T(f.def.Help)
	waitFor(t, "the operator field locked", func() bool { return f.entry.Disabled() && f.item.HintText != help })
	if !strings.Contains(f.item.HintText, "sign in") {
		t.Fatalf("the operator field says %q", f.item.HintText)
	}
	if n := visibleLabels(f.object); n != 0 {
		t.Fatalf("the locked operator field has %d more lines under it than its hint", n)
	}

	bare := newHarness(t)
	bare.settle()
	g := bare.ui.settings.fields["operator"]
	var disabled bool
	var hint string
	fyne.DoAndWait(func() { disabled, hint = g.entry.Disabled(), g.item.HintText })
	if disabled || hint != help {
		t.Fatalf("a station without operators: operator field disabled %v, hint %q", disabled, hint)
	}
}

// visibleLabels counts the labels shown in o.
func visibleLabels(o fyne.CanvasObject) int {
	n := 0
	if l, ok := o.(*widget.Label); ok && l.Visible() && l.Text != "" {
		n++
	}
	if c, ok := o.(*fyne.Container); ok {
		for _, child := range c.Objects {
			n += visibleLabels(child)
		}
	}
	return n
}
