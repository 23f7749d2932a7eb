package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// keyButton is a button that Enter presses too when it has the focus
// (Fyne's takes only Space): a clerk who tabs to Print presses Enter.
// Esc runs onEsc when set (a form's buttons close the form on Esc, as its
// fields do); Fyne's button drops Esc.
type keyButton struct {
	widget.Button
	onEsc func()
}

func newKeyButton(label string, tapped func()) *keyButton {
	b := &keyButton{}
	b.Text, b.OnTapped = label, tapped
	b.ExtendBaseWidget(b)
	return b
}

func (b *keyButton) TypedKey(ev *fyne.KeyEvent) {
	if ev.Name == fyne.KeyReturn || ev.Name == fyne.KeyEnter {
		b.Tapped(nil) // does nothing while disabled
		return
	}
	if ev.Name == fyne.KeyEscape && b.onEsc != nil {
		b.onEsc()
		return
	}
	b.Button.TypedKey(ev)
}
