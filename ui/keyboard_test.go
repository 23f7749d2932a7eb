package ui

import (
	"context"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"

	"qrdesk/app"
)

// keyboard types into a window the way Fyne's desktop driver dispatches a
// key press (internal/driver/glfw/window.go, processKeyPressed,
// processCharInput, triggersShortcut): Tab moves the focus unless the
// focused field takes it, a shortcut goes to the main menu, then to the
// focused field; keys and characters go to the focused widget, or to the
// canvas' handlers when nothing is focused. A space is a key press and
// then a character, as on a real keyboard.
type keyboard struct{ w fyne.Window }

func (k keyboard) typeText(s string) {
	fyne.DoAndWait(func() {
		for _, r := range s {
			if r == ' ' {
				k.keyDown(fyne.KeySpace)
			}
			k.char(r)
		}
	})
}

func (k keyboard) char(r rune) {
	c := k.w.Canvas()
	if f := c.Focused(); f != nil {
		f.TypedRune(r)
	} else if h := c.OnTypedRune(); h != nil {
		h(r)
	}
}

func (k keyboard) press(name fyne.KeyName) { fyne.DoAndWait(func() { k.keyDown(name) }) }

func (k keyboard) keyDown(name fyne.KeyName) {
	c := k.w.Canvas()
	if name == fyne.KeyTab {
		if t, ok := c.Focused().(fyne.Tabbable); !ok || !t.AcceptsTab() {
			c.FocusNext()
			return
		}
	}
	ev := &fyne.KeyEvent{Name: name}
	if f := c.Focused(); f != nil {
		f.TypedKey(ev)
	} else if h := c.OnTypedKey(); h != nil {
		h(ev)
	}
}

// ctrl presses Ctrl with a key: the main menu's shortcuts first, then the
// focused field's.
func (k keyboard) ctrl(name fyne.KeyName) {
	sc := &desktop.CustomShortcut{KeyName: name, Modifier: fyne.KeyModifierShortcutDefault}
	fyne.DoAndWait(func() {
		if m := k.w.MainMenu(); m != nil {
			for _, menu := range m.Items {
				for _, it := range menu.Items {
					if it.Shortcut != nil && it.Shortcut.ShortcutName() == sc.ShortcutName() {
						it.Action()
						return
					}
				}
			}
		}
		if f, ok := k.w.Canvas().Focused().(fyne.Shortcutable); ok {
			f.TypedShortcut(sc)
		}
	})
}

func TestOnlyTheScreenInViewTakesKeys(t *testing.T) {
	h := newHarness(t)
	codes := h.issue(t, 2)
	kb := keyboard{h.win}
	ctx := context.Background()

	// A label scanned on Codes is looked up, never redeemed.
	kb.ctrl(fyne.Key3)
	kb.typeText(codes[0])
	if got := h.ui.scan.entry.Text; got != "" {
		t.Fatalf("typing on Codes reached the hidden scan field: %q", got)
	}
	kb.press(fyne.KeyReturn)
	waitFor(t, "the looked-up label's detail", func() bool {
		return h.ui.codes.current != nil && h.ui.codes.current.Code == codes[0] && strings.Contains(h.ui.codes.code.Text, codes[0])
	})
	// The next scan replaces the last one instead of appending to it.
	kb.typeText(codes[1])
	kb.press(fyne.KeyReturn)
	waitFor(t, "the second look-up", func() bool { return h.ui.codes.current != nil && h.ui.codes.current.Code == codes[1] })

	// "7" and Tab on Issue go to the Count field, not to a scan.
	kb.ctrl(fyne.Key2)
	kb.typeText("7")
	kb.press(fyne.KeyTab)
	if h.ui.issue.count.Text != "7" || h.ui.scan.entry.Text != "" {
		t.Fatalf("on Issue: count %q, scan field %q", h.ui.issue.count.Text, h.ui.scan.entry.Text)
	}

	// Typing on Today or Settings with no field focused reaches nothing.
	for _, key := range []fyne.KeyName{fyne.Key4, fyne.Key5} {
		kb.ctrl(key)
		kb.typeText("ABC")
		kb.press(fyne.KeyReturn)
		if h.ui.scan.entry.Text != "" {
			t.Fatalf("typing on %s reached the scan field: %q", h.ui.current(), h.ui.scan.entry.Text)
		}
	}

	// The first-run dialog has the keyboard in its first question.
	kb.ctrl(fyne.Key1)
	f := newSetupForm(h.ui.env)
	fyne.DoAndWait(func() { f.show(func() {}) })
	first := f.fields[f.order[0]].entry
	fyne.DoAndWait(func() { first.SetText("") })
	kb.typeText("Dock 9")
	if first.Text != "Dock 9" || h.ui.scan.entry.Text != "" {
		t.Fatalf("typing into the set-up dialog: first field %q, scan field %q", first.Text, h.ui.scan.entry.Text)
	}
	fyne.DoAndWait(func() {
		h.win.Canvas().Overlays().Top().Hide()
		h.win.Canvas().Overlays().Remove(h.win.Canvas().Overlays().Top())
	})

	// Back on Scan a scan still redeems, and it is the only scan logged.
	kb.typeText(codes[1])
	kb.press(fyne.KeyReturn)
	waitFor(t, "the scan", func() bool { return h.scanTitle() == "REDEEMED" })
	st, _ := h.svc.Stats(ctx, "")
	if st.Scans != 1 || st.Redeemed != 1 {
		t.Fatalf("stats %+v: want only the one scan on the Scan screen", st)
	}
	if v, _ := h.svc.Check(ctx, codes[0]); v.Status != app.StatusUnused {
		t.Fatalf("the label looked up on Codes is %s", v.Status)
	}
}

func TestScreenShortcutsFromAnyField(t *testing.T) {
	h := newHarness(t)
	kb := keyboard{h.win}
	steps := []struct {
		key  fyne.KeyName
		want string
	}{{fyne.Key2, "issue"}, {fyne.Key3, "codes"}, {fyne.Key4, "today"}, {fyne.Key5, "settings"}, {fyne.Key1, "scan"}, {fyne.Key3, "codes"}, {fyne.Key2, "issue"}}
	for _, s := range steps {
		kb.ctrl(s.key)
		if got := h.ui.current(); got != s.want {
			t.Fatalf("Ctrl+%s: on %s, want %s", s.key, got, s.want)
		}
	}
}

func TestEnterOrEscClosesAnErrorDialog(t *testing.T) {
	h := newHarness(t)
	kb := keyboard{h.win}
	for _, key := range []fyne.KeyName{fyne.KeyReturn, fyne.KeyEscape} {
		fyne.DoAndWait(func() { h.ui.env.showError(app.Errorf(app.KindInvalid, "station letter 7 is not a letter")) })
		if h.win.Canvas().Overlays().Top() == nil {
			t.Fatal("no error dialog")
		}
		kb.press(key)
		if h.win.Canvas().Overlays().Top() != nil {
			t.Fatalf("%s did not close the error dialog", key)
		}
	}
}
