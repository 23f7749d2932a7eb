package ui

import (
	"strings"
	"unicode/utf8"

	"fyne.io/fyne/v2/widget"

	"qrdesk/app"
	"qrdesk/printing"
)

// The Issue form checks each field as it is typed and says what is wrong in
// the field's own line, in the clerk's language. Every field has a hint in
// that line, so an error replaces the hint and nothing moves: the Issue
// button stays under the pointer.

// issueFormItems builds the form's rows with their hints and checks.
func (s *issueScreen) issueFormItems() []*widget.FormItem {
	s.date.Validator = func(v string) error {
		if v = strings.TrimSpace(v); v == "" {
			return nil
		}
		if _, err := s.env.svc.ParseDay(v); err != nil {
			return userError(T("{{.Got}} is not a date: use YYYY-MM-DD, e.g. {{.Example}}",
				map[string]any{"Got": v, "Example": s.env.now().Format("2006-01-02")}))
		}
		return nil
	}
	s.expir.Validator = func(v string) error {
		if _, err := app.ParseExpiry(expiryValue(v)); err != nil {
			return userError(T("{{.Got}} is not an expiry: use never, eod (end of the label's day) or a time such as 72h or 7d",
				map[string]any{"Got": strings.TrimSpace(v)}))
		}
		return nil
	}
	s.typ.Validator = maxChars(40)
	s.ref.Validator = func(v string) error {
		if err := maxChars(200)(v); err != nil {
			return err
		}
		return printableRef(v)
	}
	item := func(label string, e *widget.Entry, hint string) *widget.FormItem {
		it := widget.NewFormItem(label, e)
		it.HintText = hint
		return it
	}
	return []*widget.FormItem{
		item(T("Count"), s.count, T("Codes in this batch")),
		item(T("Label date"), s.date, T("YYYY-MM-DD; empty for today")),
		item(T("Type"), s.typ, T("Optional: names the batch in the list, not printed")),
		item(T("Ref"), s.ref, T("Optional, e.g. an order number")),
		item(T("Expiry"), &s.expir.Entry, T("Empty for the station's setting; pick from the list or type e.g. 36h")),
	}
}

// maxChars refuses text longer than n characters.
func maxChars(n int) func(string) error {
	return func(v string) error {
		if utf8.RuneCountInString(strings.TrimSpace(v)) > n {
			return userError(T("Too long: up to {{.Max}} characters", map[string]any{"Max": n}))
		}
		return nil
	}
}

// validateIssueForm checks every field before issuing; the first error is
// returned (each field shows its own).
// printableRef refuses a ref holding a character none of the label fonts
// holds (printing.Unprintable): it would print as an empty box.
func printableRef(v string) error {
	if r, bad := printing.Unprintable(v); bad {
		return userError(T("The ref holds {{.Char}}, a character the label fonts cannot print: type it without that character",
			map[string]any{"Char": printing.DescribeRune(r)}))
	}
	return nil
}

func (s *issueScreen) validateIssueForm() error {
	for _, e := range []*widget.Entry{s.count, s.date, s.typ, s.ref, &s.expir.Entry} {
		if err := e.Validate(); err != nil {
			return err
		}
	}
	return nil
}

// expiryChoices are the expiries offered in the clerk's language; what the
// clerk picks is turned back into the service's value by expiryValue.
func expiryChoices() []struct{ text, value string } {
	return []struct{ text, value string }{
		{T("never"), "never"},
		{T("end of the label's day"), "eod"},
		{T("{{.N}} hours", map[string]any{"N": 24}), "24h"},
		{T("{{.N}} hours", map[string]any{"N": 72}), "72h"},
		{T("{{.N}} days", map[string]any{"N": 7}), "7d"},
		{T("{{.N}} days", map[string]any{"N": 30}), "30d"},
	}
}

func expiryChoiceTexts() []string {
	var out []string
	for _, c := range expiryChoices() {
		out = append(out, c.text)
	}
	return out
}

// expiryValue turns what is in the Expiry field into the service's value:
// a choice from the list, or what was typed (never, eod, 36h, 10d).
func expiryValue(text string) string {
	text = strings.TrimSpace(text)
	for _, c := range expiryChoices() {
		if text == c.text {
			return c.value
		}
	}
	return text
}

// expiryChoiceText shows a station's expiry as the list shows it.
func expiryChoiceText(e app.Expiry) string {
	for _, c := range expiryChoices() {
		if c.value == e.String() {
			return c.text
		}
	}
	return e.String()
}
