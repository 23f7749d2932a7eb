package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"qrdesk/app"
)

// A setting's control hands Esc to the form it is in (the set-up closes
// on Esc as on Later): Fyne gives every key to the focused control, and
// its fields, lists and checkboxes drop Esc. The control types below are
// Fyne's with only that added; onEsc nil (the Settings screen) leaves Esc
// as Fyne has it.

type escSelectEntry struct {
	widget.SelectEntry
	onEsc func()
}

func (e *escSelectEntry) TypedKey(k *fyne.KeyEvent) {
	if k.Name == fyne.KeyEscape && e.onEsc != nil {
		e.onEsc()
		return
	}
	e.SelectEntry.TypedKey(k)
}

type escSelect struct {
	widget.Select
	onEsc func()
}

func (s *escSelect) TypedKey(k *fyne.KeyEvent) {
	if k.Name == fyne.KeyEscape && s.onEsc != nil {
		s.onEsc()
		return
	}
	s.Select.TypedKey(k)
}

type escCheck struct {
	widget.Check
	onEsc func()
}

func (c *escCheck) TypedKey(k *fyne.KeyEvent) {
	if k.Name == fyne.KeyEscape && c.onEsc != nil {
		c.onEsc()
		return
	}
	c.Check.TypedKey(k)
}

func newEscSelect(options []string, changed func(string)) *escSelect {
	s := &escSelect{}
	s.Options, s.OnChanged = options, changed
	s.ExtendBaseWidget(s)
	return s
}

func newEscCheck(label string, changed func(bool)) *escCheck {
	c := &escCheck{}
	c.Text, c.OnChanged = label, changed
	c.ExtendBaseWidget(c)
	return c
}

// setOnEsc makes Esc in the field run fn.
func (f *settingField) setOnEsc(fn func()) {
	switch {
	case f.entry != nil:
		f.entry.onEsc = fn
	case f.combo != nil:
		f.combo.onEsc = fn
	case f.choice != nil:
		f.choice.onEsc = fn
	case f.check != nil:
		f.check.onEsc = fn
	}
}

// A label scanned while the set-up is up is typed, with the scanner's
// Enter, into the set-up's field that has the keyboard (the first one,
// Prefix). The set-up is the station's own answers, asked once before it
// issues or scans, and a label is never one of them: the scan is refused
// with a sentence that says to finish the set-up first, the field gets
// back what it held, and the label stays as it was (scanned again once
// the set-up is closed, it is redeemed).

// labelGuard watches one set-up field for a scanned label.
type labelGuard struct {
	env       *env
	entry     *widget.Entry
	before    string // the field's text at the last Enter (or when the set-up opened)
	submitted func(string)
}

// refuseLabels makes the fields refuse a scanned label (see above). Call
// it after guardBadges: a badge is held back before the Enter comes here.
func refuseLabels(e *env, entries ...*widget.Entry) {
	for _, en := range entries {
		g := &labelGuard{env: e, entry: en, before: en.Text, submitted: en.OnSubmitted}
		en.OnSubmitted = g.onSubmitted
	}
}

func (g *labelGuard) onSubmitted(text string) {
	if keep, ok := withoutLabel(g.before, text); ok {
		g.entry.SetText(keep)
		g.env.showError(userError(T("That was a label: finish the set-up first (Save, or Later to answer it another time), then scan the label again. It was not redeemed.")))
		return
	}
	g.before = text
	if g.submitted != nil {
		g.submitted(text)
	}
}

// withoutLabel finds a label in what was typed into a field since it held
// before (the scanner types at the cursor) and returns the field's text
// without it. The label is the longest end of the typed run that reads as
// a code: a code is read from its right end, and letters typed in front of
// it may be its prefix.
func withoutLabel(before, text string) (string, bool) {
	start, end := insertedRange(before, text)
	runes := []rune(text)
	typed := runes[start:end]
	for i := range typed {
		if _, err := app.Parse(app.Normalize(string(typed[i:]))); err == nil {
			return string(runes[:start+i]) + string(runes[end:]), true
		}
	}
	return text, false
}
