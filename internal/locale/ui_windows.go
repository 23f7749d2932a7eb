package locale

import "golang.org/x/sys/windows"

// uiLanguage is the first Windows display language of the user ("zh-CN"
// on a Chinese Windows), "" if Windows does not say. Fyne on Windows reads
// the regional format instead (GetUserDefaultLocaleName), which can differ.
func uiLanguage() string {
	langs, err := windows.GetUserPreferredUILanguages(windows.MUI_LANGUAGE_NAME)
	if err != nil || len(langs) == 0 {
		return ""
	}
	return langs[0]
}
