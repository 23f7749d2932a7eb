package ui

import (
	"context"
	"unicode"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"qrdesk/app"
)

// A scanner types a badge into whichever field has the focus: the Codes
// search, the Reason field, a setting. The badge's text is a credential,
// so a field never keeps, shows or hands it on: from the moment the text
// typed into a field begins a badge ("QRDESK", in any case, after the
// scanner map) the field keeps what was there before and the rest of the
// badge is held apart, never in the field. A whole badge signs its operator
// in, as on the Scan screen; the scanner's Enter after it does nothing
// more (it used to submit the field with the badge as a reason or a search).

// badgeStart begins every badge (app.BadgeMarker is "QRDESKBADGE"):
// enough to hold the badge back before its signature is typed.
const badgeStart = "QRDESK"

// badgeGuard watches one field.
type badgeGuard struct {
	env       *env
	entry     *widget.Entry
	keep      string // the field's text before the badge
	last      string // the field's text as last seen, to tell what a change typed
	held      []rune // the badge typed so far: never in the field
	on        bool   // a badge is being typed
	swallow   bool   // the badge is done: the scanner's Enter that follows does nothing
	setting   bool   // the guard is setting the field's text itself
	changed   func(string)
	submitted func(string)
}

// guardBadges makes each field hold a scanned badge back (see above).
// It wraps the fields' OnChanged and OnSubmitted, so call it once they are
// set.
func guardBadges(e *env, entries ...*widget.Entry) {
	for _, en := range entries {
		g := &badgeGuard{env: e, entry: en, last: en.Text, changed: en.OnChanged, submitted: en.OnSubmitted}
		en.OnChanged = g.onChanged
		en.OnSubmitted = g.onSubmitted
	}
}

func (g *badgeGuard) onChanged(text string) {
	if g.setting {
		return
	}
	if g.on {
		g.held = append(g.held, inserted(g.keep, text)...)
		g.restore()
		if _, err := app.ParseBadge(string(g.held)); err == nil || badgeChars(g.held) >= app.BadgeLen {
			g.finish() // all there (or a misread one): the scanner's Enter is still to come
			g.swallow = true
		}
		return
	}
	g.swallow = false
	if at := badgeAt(app.ApplyScannerMap(text, g.env.current().ScannerMap)); at >= 0 {
		g.on = true
		g.keep, g.held = badgeSplit(g.last, text, at)
		g.restore()
		if g.changed != nil {
			g.changed(g.keep) // it saw the badge's first letters: its error, a search, follow the field again
		}
		return
	}
	g.last = text
	if g.changed != nil {
		g.changed(text)
	}
}

func (g *badgeGuard) onSubmitted(text string) {
	if g.on {
		g.finish() // ended by the scanner's Enter: what was read
		return
	}
	if g.swallow {
		g.swallow = false
		return
	}
	if g.submitted != nil {
		g.submitted(text)
	}
}

// restore puts the field back to its text before the badge.
func (g *badgeGuard) restore() {
	g.setting = true
	g.entry.SetText(g.keep)
	g.setting = false
	g.last = g.keep
}

// badgeSplit parts text, where a badge begins at rune at, into the field's
// own text and the badge typed so far. The badge is the run from at to
// the end of what this change typed (before → text): the field's text
// after the cursor is the field's, not the badge's (a field focused with
// its cursor at the start, as the set-up's Prefix is, lost its text to the
// badge, and the badge its last letters to the field).
func badgeSplit(before, text string, at int) (keep string, held []rune) {
	runes := []rune(text)
	at = min(at, len(runes))
	end := len(runes)
	if _, insEnd := insertedRange(before, text); insEnd > at {
		end = insEnd
	}
	return string(runes[:at]) + string(runes[end:]), runes[at:end]
}

// finish ends the badge: its operator signs in (off the UI goroutine), or
// the window says why not, never with the badge's text.
func (g *badgeGuard) finish() {
	raw := app.ApplyScannerMap(string(g.held), g.env.current().ScannerMap)
	g.on, g.held = false, nil
	s := g.env.signIn
	if s == nil {
		g.env.showError(userError(T("That was an operator badge: it is not typed into a field, and this desk has no operators to sign in")))
		return
	}
	g.env.background(func() {
		op, err := s.staff.SignInBadge(context.Background(), raw)
		fyne.Do(func() {
			if err != nil {
				g.env.showError(userError(T("That was an operator badge, kept out of the field. Not signed in: {{.Why}}", map[string]any{"Why": app.ErrorMessage(err)})))
				return
			}
			s.set(&op)
		})
	})
}

// badgeAt is where a badge begins in text (in runes), or -1.
func badgeAt(text string) int {
	runes, start := []rune(text), []rune(badgeStart)
	for i := 0; i+len(start) <= len(runes); i++ {
		match := true
		for j, r := range start {
			if unicode.ToUpper(runes[i+j]) != r {
				match = false
				break
			}
		}
		if match {
			return i
		}
	}
	return -1
}

// badgeChars counts the letters and digits of a badge typed so far.
func badgeChars(held []rune) int {
	n := 0
	for _, r := range held {
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			n++
		}
	}
	return n
}

// inserted is what typing added to before to make after: the runes between
// their common start and end (typing inserts at the cursor).
func inserted(before, after string) []rune {
	start, end := insertedRange(before, after)
	return []rune(after)[start:end]
}

// insertedRange is where, in runes of after, inserted's runes are.
func insertedRange(before, after string) (start, end int) {
	b, a := []rune(before), []rune(after)
	for start < len(b) && start < len(a) && b[start] == a[start] {
		start++
	}
	same := 0
	for same < len(b)-start && same < len(a)-start && b[len(b)-1-same] == a[len(a)-1-same] {
		same++
	}
	return start, len(a) - same
}
