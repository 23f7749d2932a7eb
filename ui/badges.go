package ui

import (
	"bytes"
	"context"
	"os"
	"strings"
	"unicode"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"qrdesk/app"
	"qrdesk/printing"
)

// badgeSheet is the Settings button that saves every operator's badge as
// one PDF (a supervisor's job: a badge signs its operator in). The Staff
// screen saves one operator's.
type badgeSheet struct {
	env     *env
	button  *keyButton
	message *widget.Label
}

func newBadgeSheet(e *env) *badgeSheet {
	b := &badgeSheet{env: e, message: widget.NewLabel("")}
	b.message.Wrapping = fyne.TextWrapWord
	b.button = newKeyButton(T("Print operator badges…"), b.ask)
	if e.signIn == nil {
		b.button.Disable()
	}
	return b
}

// ask saves the sheet where the labels' Save PDF writes, with no file
// dialog (one rule for every file the window saves), once a supervisor
// approves.
func (b *badgeSheet) ask() {
	if _, ok := b.env.supervisor(T("Print the operators' badges"), b.ask); !ok {
		return
	}
	b.env.background(func() {
		staff := b.env.signIn.staff
		badges, err := staff.Badges(context.Background())
		path := ""
		if err == nil {
			path, err = b.env.saveBadges(staff, badges, "qrdesk-badges")
		}
		fyne.Do(func() { b.message.SetText(badgesSavedText(path, err)) })
	})
}

// badgesSavedText says where badges were saved, or why not.
func badgesSavedText(path string, err error) string {
	if err != nil {
		return T("Badges not saved: {{.Error}}", map[string]any{"Error": errorText(err).Error()})
	}
	return T("Badges saved to {{.Path}}: print at 100 % and keep them like keys", map[string]any{"Path": path})
}

// badgesOf is the badges of ops, for a sheet of them.
func badgesOf(staff *app.Operators, ops ...app.Operator) ([]app.OperatorBadge, error) {
	out := make([]app.OperatorBadge, len(ops))
	for i, op := range ops {
		text, err := staff.Badge(op)
		if err != nil {
			return nil, err
		}
		out[i] = app.OperatorBadge{Operator: op, Badge: text}
	}
	return out, nil
}

// badgeFileName names the PDF of one operator's badge: their name, less
// what a file name may not hold on some system.
func badgeFileName(name string) string {
	safe := strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' {
			return r
		}
		return '-'
	}, name)
	return "qrdesk-badge-" + safe
}

// saveBadges writes badges on the station's label template to a new PDF
// named name in the save folder, off the UI goroutine, and returns its
// path. The operators have a badge that signs in again: a note that their
// badge stopped with a sync ends (app.Operators.BadgesPrinted).
func (e *env) saveBadges(staff *app.Operators, badges []app.OperatorBadge, name string) (string, error) {
	set := e.current()
	t, err := printing.FindTemplate(e.templateDir, set.Template)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	o := printing.Options{Template: t, OffsetX: set.OffsetX, OffsetY: set.OffsetY, EC: set.QREC, Created: e.now()}
	if err := printing.WritePDF(&buf, printing.BadgeLabels(badges), o); err != nil {
		return "", err
	}
	dir, err := e.saveFolder()
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		return "", err
	}
	path := freePath(dir, name, ".pdf")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		return "", err
	}
	return path, staff.BadgesPrinted(context.Background(), badges)
}
