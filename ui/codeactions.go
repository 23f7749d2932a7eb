package ui

import (
	"context"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"qrdesk/app"
)

// The Codes screen's replace and undo: both take the reason typed in the
// detail panel, like a disable.

// newCodeActionButtons makes the Replace and Undo buttons of the detail
// panel, disabled until a label that allows them is picked.
func (s *codesScreen) newCodeActionButtons() {
	s.replaceBtn = newKeyButton(T("Replace label…"), s.replace)
	s.undoBtn = newKeyButton(T("Undo redemption…"), s.undo)
	s.replaceBtn.Disable()
	s.undoBtn.Disable()
}

// enableCodeActions enables what the picked label allows: a replacement
// for an unused label (a disabled one is enabled first, by a supervisor),
// an undo for a used one (the desk refuses it with the reason when it is
// another desk's or too late).
func (s *codesScreen) enableCodeActions(r app.CodeRecord) {
	if r.Status == app.StatusUnused {
		s.replaceBtn.Enable()
	} else {
		s.replaceBtn.Disable()
	}
	if r.Status == app.StatusUsed {
		s.undoBtn.Enable()
	} else {
		s.undoBtn.Disable()
	}
}

// actionReason is the reason typed in the detail panel, or "" after
// telling the clerk one is needed.
func (s *codesScreen) actionReason() string {
	reason := strings.TrimSpace(s.reason.Text)
	if len([]rune(reason)) < 3 {
		s.message.SetText(T("Give a reason of at least 3 characters"))
		if c := s.env.canvas(); c != nil {
			c.Focus(s.reason)
		}
		return ""
	}
	return reason
}

// replace disables the picked label and issues its replacement, after the
// clerk confirms.
func (s *codesScreen) replace() {
	s.confirmAction(T("Replace label?"), T("Replace"), func(code, reason string) string {
		return T("{{.Code}} will be disabled and a new label issued in its place. Reason: {{.Reason}}",
			map[string]any{"Code": code, "Reason": reason})
	}, s.runReplace)
}

// confirmAction asks the clerk to confirm an action on the picked label,
// with the reason typed in the detail panel, then runs it. Enter says yes
// and Esc no, as in the window's other questions (env.confirm).
func (s *codesScreen) confirmAction(title, yes string, text func(code, reason string) string, run func(code, reason string)) {
	if s.current == nil {
		return
	}
	reason := s.actionReason()
	if reason == "" {
		return
	}
	code := s.current.Code
	s.env.confirm(title, text(code, reason), yes, func(ok bool) {
		if ok {
			run(code, reason)
		}
	})
}

// runReplace replaces the label off the UI goroutine and shows the new one.
// A replace disables a label and issues a live one past the daily
// quantity, so it needs a supervisor (signed in, or approving this one)
// exactly as a disable does.
func (s *codesScreen) runReplace(code, reason string) {
	by, ok := s.env.supervisor(T("Replace {{.Code}}", map[string]any{"Code": code}), func() { s.runReplace(code, reason) })
	if !ok {
		return
	}
	s.env.background(func() {
		r, err := s.env.svc.Replace(context.Background(), app.ReplaceRequest{Code: code, Reason: reason, Operator: by})
		onUI(func() {
			if err != nil {
				s.message.SetText(app.ErrorMessage(err))
				return
			}
			s.reason.SetText("")
			s.reasonDone()
			s.message.SetText(T("Replaced by {{.New}} (batch {{.Batch}}): print it on Issue & print, where it is the newest batch",
				map[string]any{"New": r.New.Code, "Batch": r.Batch}))
			// The new label goes into the table under the old one and is
			// selected there: table and detail show the same label (the
			// old one stayed selected while the detail showed the new).
			at := len(s.rows)
			for i := range s.rows {
				if s.rows[i].Code == code {
					s.rows[i].Status, s.rows[i].DisabledReason = app.StatusDisabled, "replaced by "+r.New.Code
					at = i + 1
				}
			}
			s.rows = slices.Insert(s.rows, at, r.New)
			s.table.Refresh()
			s.table.Select(widget.TableCellID{Row: at, Col: 0})
			s.showDetail(r.New)
		})
	})
}

// undo puts the picked label back to unused, after the clerk confirms.
func (s *codesScreen) undo() {
	s.confirmAction(T("Undo redemption?"), T("Undo"), func(code, reason string) string {
		return T("{{.Code}} goes back to unused and can be scanned again. Reason: {{.Reason}}",
			map[string]any{"Code": code, "Reason": reason})
	}, s.runUndo)
}

// runUndo undoes the redemption off the UI goroutine and shows the label.
// An undo needs a supervisor (signed in, or approving this one).
func (s *codesScreen) runUndo(code, reason string) {
	by, ok := s.env.supervisor(T("Undo the redemption of {{.Code}}", map[string]any{"Code": code}), func() { s.runUndo(code, reason) })
	if !ok {
		return
	}
	s.env.background(func() {
		u, err := s.env.svc.UndoRedemption(context.Background(), app.UndoRequest{Code: code, Reason: reason, Operator: by})
		var rec []app.CodeRecord
		if err == nil {
			rec, err = s.env.svc.Search(context.Background(), app.SearchQuery{Text: u.Code})
		}
		onUI(func() {
			if err != nil {
				s.message.SetText(app.ErrorMessage(err))
				return
			}
			s.reason.SetText("")
			s.reasonDone()
			msg := T("Redemption undone: {{.Code}} is unused again", map[string]any{"Code": u.Code})
			switch u.Server {
			case "waiting":
				msg += " " + T("(the server hears of it at the next sync)")
			case app.UndoWaitsUpgrade:
				msg += " " + T("(the server is older than this desk: the undo waits until qrdesk-server is upgraded)")
			}
			s.message.SetText(msg)
			if len(rec) == 1 {
				for i := range s.rows {
					if s.rows[i].ID == rec[0].ID {
						s.rows[i] = rec[0]
					}
				}
				s.table.Refresh()
				s.showDetail(rec[0])
			}
		})
	})
}

// reasonDone moves the keyboard from the Reason field, once its reason was
// used, to the search field with its text selected: the next scan (a label
// to look up, or a supervisor's badge) goes there, not into Reason, where
// it began a new action with the scan as its reason.
func (s *codesScreen) reasonDone() {
	c := s.env.canvas()
	if c == nil {
		return
	}
	c.Focus(s.query)
	s.query.TypedShortcut(&fyne.ShortcutSelectAll{})
}
