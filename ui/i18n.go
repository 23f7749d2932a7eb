package ui

import (
	"embed"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/lang"
)

//go:embed translations
var translations embed.FS

// loadTranslations registers the Simplified Chinese texts; Fyne picks the
// language from the system locale (LANG), English otherwise.
func loadTranslations() {
	if err := lang.AddTranslationsFS(translations, "translations"); err != nil {
		fyne.LogError("loading translations", err)
	}
}

// T translates an English text; data fills {{.Name}} placeholders.
func T(text string, data ...map[string]any) string {
	if len(data) > 0 {
		return lang.L(text, data[0])
	}
	return lang.L(text)
}
