package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// escEntry is a text field that hands Esc to the form it is in. Fyne gives
// every key to the focused field, and its Entry drops Esc, so a form whose
// fields have the focus never saw it: Esc did not close the sign-in and
// approval forms.
type escEntry struct {
	widget.Entry
	onEsc func() // nil: Esc does nothing
}

func newEscEntry() *escEntry {
	e := &escEntry{}
	e.Wrapping = fyne.TextWrap(fyne.TextTruncateClip)
	e.ExtendBaseWidget(e)
	return e
}

// newEscPasswordEntry hides what is typed (a PIN). It has no reveal button:
// Fyne's belongs to its own password entry.
func newEscPasswordEntry() *escEntry {
	e := newEscEntry()
	e.Password = true
	return e
}

func (e *escEntry) TypedKey(k *fyne.KeyEvent) {
	if k.Name == fyne.KeyEscape && e.onEsc != nil {
		e.onEsc()
		return
	}
	e.Entry.TypedKey(k)
}
