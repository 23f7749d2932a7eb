package ui

import (
	"embed"
	"encoding/json"
	"io/fs"
	"strings"
	"text/template"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/lang"
)

//go:embed translations
var translations embed.FS

// override, when not nil, translates instead of Fyne: the texts of the
// language the user asked for, where Fyne chose another (an empty map means
// English). Only Windows sets it (i18n_windows.go).
var override map[string]string

// loadTranslations registers the Simplified Chinese texts; Fyne picks the
// language from the system locale (LANG on Linux, the regional format on
// Windows), English otherwise. On Windows the window follows the display
// language instead, or LANG where set (preferredLanguage).
func loadTranslations() {
	if err := lang.AddTranslationsFS(translations, "translations"); err != nil {
		fyne.LogError("loading translations", err)
	}
	want := preferredLanguage()
	if want == "" {
		return
	}
	zh, err := chineseTranslations()
	if err != nil {
		fyne.LogError("loading translations", err)
		return
	}
	override = overrideFor(want, fyneSpeaks(zh), zh)
}

// chineseTranslations merges every translations/*.zh_Hans.json.
func chineseTranslations() (map[string]string, error) {
	files, err := fs.Glob(translations, "translations/*.zh_Hans.json")
	if err != nil {
		return nil, err
	}
	zh := map[string]string{}
	for _, f := range files {
		data, err := translations.ReadFile(f)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(data, &zh); err != nil {
			return nil, err
		}
	}
	return zh, nil
}

// fyneSpeaks says whether Fyne chose Chinese: it answers a text with its
// Chinese translation.
func fyneSpeaks(zh map[string]string) bool {
	for k, v := range zh {
		if v != k && !strings.Contains(k, "{{") {
			return lang.L(k) == v
		}
	}
	return false
}

// overrideFor is the override for a user who asked for language want (a
// BCP 47 tag) when Fyne speaks Chinese or not: nil when they agree, the
// Chinese texts for a Chinese want, an empty map (English) otherwise.
func overrideFor(want string, fyneChinese bool, zh map[string]string) map[string]string {
	wantChinese := want == "zh" || strings.HasPrefix(want, "zh-")
	switch {
	case wantChinese == fyneChinese:
		return nil
	case wantChinese:
		return zh
	}
	return map[string]string{}
}

// language is the window's language as a BCP 47 tag, for the texts the
// domain gives in both (an order file's refusals: app.OrderRowError):
// "zh" when the window speaks Chinese (its one translation), else "en".
func language() string {
	if T("Import orders") != "Import orders" {
		return "zh"
	}
	return "en"
}

// T translates an English text; data fills {{.Name}} placeholders.
func T(text string, data ...map[string]any) string {
	if override != nil {
		return overrideT(text, data...)
	}
	if len(data) > 0 {
		return lang.L(text, data[0])
	}
	return lang.L(text)
}

func overrideT(text string, data ...map[string]any) string {
	msg, ok := override[text]
	if !ok {
		msg = text
	}
	if len(data) == 0 || !strings.Contains(msg, "{{") {
		return msg
	}
	tmpl, err := template.New("").Parse(msg)
	if err != nil {
		return msg
	}
	var b strings.Builder
	if err := tmpl.Execute(&b, data[0]); err != nil {
		return msg
	}
	return b.String()
}
