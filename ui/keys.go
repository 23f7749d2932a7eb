package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
)

// Only the screen in view takes keys. Fyne keeps the focus on a widget
// when its tab is hidden, so without this the hidden scan field kept the
// keyboard on every other screen: a label scanned on Codes to look it up
// was redeemed. Each screen names the field that gets the keyboard when it
// comes up (nil: none) and the field a keyboard-wedge scan typed with no
// field focused goes to (nil: dropped).

// keyTarget is the field of the screen in view that takes typing.
func (ui *mainUI) keyTarget() fyne.Focusable {
	switch ui.current() {
	case "scan":
		return ui.scan.entry
	case "codes":
		return ui.codes.query
	}
	return nil
}

// firstField is the field focused when a screen comes up.
func (ui *mainUI) firstField() fyne.Focusable {
	if ui.current() == "issue" {
		return ui.issue.count
	}
	return ui.keyTarget()
}

// focusScreen moves the keyboard to the screen in view: its first field,
// or nowhere (never a field of a hidden screen).
func (ui *mainUI) focusScreen() {
	c := ui.env.canvas()
	if c == nil {
		return
	}
	if f := ui.firstField(); f != nil {
		c.Focus(f)
		// What is typed replaces the old text (a count, a last look-up).
		if sc, ok := f.(fyne.Shortcutable); ok {
			sc.TypedShortcut(&fyne.ShortcutSelectAll{})
		}
	} else {
		c.Unfocus()
	}
}

// routeRune takes a typed character no field took. While a dialog is up it
// is dropped: it belongs to the dialog, never to a screen behind it.
func (ui *mainUI) routeRune(r rune) {
	c := ui.env.canvas()
	if c.Overlays().Top() != nil {
		return
	}
	if f := ui.keyTarget(); f != nil {
		c.Focus(f)
		f.TypedRune(r)
	}
}

// routeKey takes a key no field took: Enter and Esc answer the dialog that
// asked for them, and on a screen the key goes to its typing field.
func (ui *mainUI) routeKey(k *fyne.KeyEvent) {
	c := ui.env.canvas()
	if c.Overlays().Top() != nil {
		if ui.env.dialogKeys != nil {
			ui.env.dialogKeys(k)
		}
		return
	}
	if f := ui.keyTarget(); f != nil {
		c.Focus(f)
		f.TypedKey(k)
	}
}

// screenKeys are the digits of Ctrl+1 … Ctrl+6, one per screen in order.
var screenKeys = []fyne.KeyName{fyne.Key1, fyne.Key2, fyne.Key3, fyne.Key4, fyne.Key5, fyne.Key6}

// screenTitle is a screen's name on its tab and in the Screens menu.
func screenTitle(name string) string {
	switch name {
	case "scan":
		return T("Scan")
	case "issue":
		return T("Issue & print")
	case "codes":
		return T("Codes")
	case "today":
		return T("Today")
	case "settings":
		return T("Settings")
	case "staff":
		return T("Staff")
	}
	return name
}

// screenMenu holds Ctrl+1 … Ctrl+6. Fyne gives a shortcut to the focused
// field first, and a text field swallows the ones it does not know; only
// the main menu's shortcuts come before it, so they work from any field.
func (ui *mainUI) screenMenu() *fyne.MainMenu {
	items := make([]*fyne.MenuItem, len(ui.screens))
	for i, name := range ui.screens {
		items[i] = fyne.NewMenuItem(screenTitle(name), func() { ui.show(name) })
		items[i].Shortcut = &desktop.CustomShortcut{KeyName: screenKeys[i], Modifier: fyne.KeyModifierShortcutDefault}
	}
	return fyne.NewMainMenu(fyne.NewMenu(T("Screens"), items...), ui.helpMenu())
}
