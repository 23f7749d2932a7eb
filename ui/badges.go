package ui

import (
	"bytes"
	"context"
	"os"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/widget"

	"qrdesk/printing"
)

// badgeSheet is the Settings button that saves the operators' badge sheet
// as a PDF (a supervisor's job: a badge signs its operator in).
type badgeSheet struct {
	env     *env
	button  *widget.Button
	message *widget.Label
}

func newBadgeSheet(e *env) *badgeSheet {
	b := &badgeSheet{env: e, message: widget.NewLabel("")}
	b.message.Wrapping = fyne.TextWrapWord
	b.button = widget.NewButton(T("Print operator badges…"), b.ask)
	if e.signIn == nil {
		b.button.Disable()
	}
	return b
}

func (b *badgeSheet) ask() {
	if _, ok := b.env.supervisor(T("Print the operators' badges"), b.ask); !ok {
		return
	}
	d := dialog.NewFileSave(func(w fyne.URIWriteCloser, err error) {
		if err != nil || w == nil {
			return
		}
		path := w.URI().Path()
		w.Close()
		go b.save(path)
	}, b.env.win)
	d.SetFileName("qrdesk-badges.pdf")
	d.SetFilter(storage.NewExtensionFileFilter([]string{".pdf"}))
	d.Show()
}

// save writes the badge sheet to path, off the UI goroutine.
func (b *badgeSheet) save(path string) {
	err := b.write(path)
	fyne.Do(func() {
		if err != nil {
			b.message.SetText(T("Badges not saved: {{.Error}}", map[string]any{"Error": errorText(err).Error()}))
			return
		}
		b.message.SetText(T("Badges saved to {{.Path}}: print at 100 % and keep them like keys", map[string]any{"Path": path}))
	})
}

func (b *badgeSheet) write(path string) error {
	badges, err := b.env.signIn.staff.Badges(context.Background())
	if err != nil {
		return err
	}
	set := b.env.current()
	t, err := printing.FindTemplate(b.env.templateDir, set.Template)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	o := printing.Options{Template: t, OffsetX: set.OffsetX, OffsetY: set.OffsetY, EC: set.QREC, Created: b.env.now()}
	if err := printing.WritePDF(&buf, printing.BadgeLabels(badges), o); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o600)
}
