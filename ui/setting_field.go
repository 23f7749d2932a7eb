package ui

import (
	"errors"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"qrdesk/app"
	"qrdesk/printing"
)

// settingField is one setting's control, made from its app.SettingDef: a
// checkbox for on/off, a list for choices (templates and printers too), a
// field for numbers and text. A bad value is reported at once, beside the
// field, in words the clerk reads (translated, without internal key names).
type settingField struct {
	def     app.SettingDef
	check   *escCheck
	choice  *escSelect
	combo   *escSelectEntry // a list that also takes a typed value (printer, expiry)
	entry   *escEntry
	problem *widget.Label    // the error beside the field; hidden while the value is fine
	item    *widget.FormItem // the field in its form, with its help as the hint
	object  fyne.CanvasObject
	// onChanged runs after every change by the clerk.
	onChanged func()
}

func newSettingField(e *env, def app.SettingDef) *settingField {
	f := &settingField{def: def}
	changed := func() {
		f.validate()
		if f.onChanged != nil {
			f.onChanged()
		}
	}
	var control fyne.CanvasObject
	switch def.Kind {
	case app.SettingBool:
		f.check = newEscCheck(T("On"), func(bool) { changed() })
		control = f.check
	case app.SettingChoice:
		labels := make([]string, len(def.Choices))
		for i := range def.Choices {
			labels[i] = T(def.ChoiceLabels[i])
		}
		f.choice = newEscSelect(labels, func(string) { changed() })
		control = f.choice
	case app.SettingTemplate:
		f.choice = newEscSelect(templateNames(e.templateDir), func(string) { changed() })
		control = f.choice
	case app.SettingPrinter:
		f.combo = newComboEntry(nil, changed)
		f.combo.SetPlaceHolder(T("(no printer: save a PDF)"))
		control = f.combo
	default:
		if len(def.Suggestions) > 0 {
			shown := make([]string, len(def.Suggestions))
			for i, v := range def.Suggestions {
				shown[i] = suggestionText(v)
			}
			f.combo = newComboEntry(shown, changed)
			control = f.combo
		} else {
			f.entry = newPageEntry()
			f.entry.OnChanged = func(string) { changed() }
			control = f.entry
		}
	}
	f.problem = widget.NewLabel("")
	f.problem.Importance = widget.DangerImportance
	f.problem.Wrapping = fyne.TextWrapWord
	f.problem.TextStyle.Bold = true
	f.problem.Hide()
	f.object = container.NewVBox(control, f.problem)
	return f
}

// newPageEntry is a one-line field that lets the mouse wheel scroll the
// page: Fyne's entry scrolls its own text by default and so swallows the
// wheel whenever the pointer is over a field.
func newPageEntry() *escEntry {
	en := &escEntry{}
	en.Wrapping, en.Scroll = fyne.TextWrapOff, fyne.ScrollNone
	en.ExtendBaseWidget(en)
	return en
}

func newComboEntry(options []string, changed func()) *escSelectEntry {
	c := &escSelectEntry{}
	c.ExtendBaseWidget(c)
	c.SetOptions(options)
	c.Wrapping, c.Scroll = fyne.TextWrapOff, fyne.ScrollNone // see newPageEntry
	c.OnChanged = func(string) { changed() }
	return c
}

func templateNames(dir string) []string {
	var names []string
	if all, err := printing.Templates(dir); err == nil {
		for _, t := range all {
			names = append(names, t.Name)
		}
	}
	return names
}

// value is the setting as it would be stored.
func (f *settingField) value() string {
	switch {
	case f.check != nil:
		if f.check.Checked {
			return "true"
		}
		return "false"
	case f.choice != nil && f.def.Kind == app.SettingChoice:
		if i := f.choice.SelectedIndex(); i >= 0 {
			return f.def.Choices[i]
		}
		return ""
	case f.choice != nil:
		return f.choice.Selected
	case f.combo != nil:
		return f.suggestionValue(f.combo.Text)
	}
	return f.entry.Text
}

// setValue shows a stored value.
func (f *settingField) setValue(v string) {
	switch {
	case f.check != nil:
		f.check.SetChecked(v == "true")
	case f.choice != nil && f.def.Kind == app.SettingChoice:
		if i := slices.Index(f.def.Choices, v); i >= 0 {
			f.choice.SetSelectedIndex(i)
		}
	case f.choice != nil:
		if v != "" && !slices.Contains(f.choice.Options, v) {
			f.choice.Options = append(f.choice.Options, v) // a template not found now is still shown
		}
		f.choice.SetSelected(v)
	case f.combo != nil:
		if slices.Contains(f.def.Suggestions, v) {
			v = suggestionText(v)
		}
		f.combo.SetText(v)
	default:
		f.entry.SetText(v)
	}
	f.validate()
}

// suggestionText shows a suggested value in the clerk's language: the words
// (never, eod) are translated, durations such as 72h are not.
func suggestionText(v string) string {
	switch v {
	case "never":
		return T("never (labels do not expire)")
	case "eod":
		return T("eod (end of the label's day)")
	}
	return v
}

// suggestionValue turns a translated suggestion back into the value stored.
func (f *settingField) suggestionValue(text string) string {
	text = strings.TrimSpace(text)
	for _, v := range f.def.Suggestions {
		if text == suggestionText(v) {
			return v
		}
	}
	return text
}

// focusable is the control that takes the keyboard.
// entries are the field's text fields (none for a checkbox or a list), for
// the badge guard.
func (f *settingField) entries() []*widget.Entry {
	switch {
	case f.entry != nil:
		return []*widget.Entry{&f.entry.Entry}
	case f.combo != nil:
		return []*widget.Entry{&f.combo.Entry}
	}
	return nil
}

func (f *settingField) focusable() fyne.Focusable {
	switch {
	case f.check != nil:
		return f.check
	case f.choice != nil:
		return f.choice
	case f.combo != nil:
		return f.combo
	}
	return f.entry
}

// setOptions fills a printer list (found off the UI goroutine).
func (f *settingField) setOptions(opts []string) {
	if f.combo != nil {
		f.combo.SetOptions(opts)
	}
}

// validate checks the value and shows or hides the problem beside the
// field; it returns the error in the clerk's words.
func (f *settingField) validate() error {
	err := f.def.Check(f.value())
	if err == nil {
		f.problem.Hide()
		return nil
	}
	msg := settingProblem(err)
	f.problem.SetText(msg)
	f.problem.Show()
	return userError(msg)
}

// settingProblem says what is wrong with a setting, translated.
func settingProblem(err error) string {
	var se *app.SettingError
	if errors.As(err, &se) {
		return T("Not allowed: {{.Rule}}", map[string]any{"Rule": T(se.Rule)})
	}
	var le *app.LetterEnrolledError
	if errors.As(err, &le) {
		return T("this desk is enrolled at the server as {{.Station}} with letter {{.Letter}} and keeps it: the administrator changes a desk's letter at the server", map[string]any{"Station": le.Station, "Letter": le.Letter})
	}
	return app.ErrorMessage(err)
}

// formItem is the field with its label and help, for a widget.Form.
func (f *settingField) formItem() *widget.FormItem {
	f.item = widget.NewFormItem(T(f.def.Label), f.object)
	f.item.HintText = T(f.def.Help)
	return f.item
}

// setHint replaces the help under the field with what it means at this
// station (one line under a field, never two); "" puts the help back.
func (f *settingField) setHint(text string) {
	if text == "" {
		text = T(f.def.Help)
	}
	f.item.HintText = text
}
