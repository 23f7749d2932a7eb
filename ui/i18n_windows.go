package ui

import "qrdesk/internal/locale"

// preferredLanguage is the language a Windows desk speaks: LANG (or LC_ALL,
// LC_MESSAGES) where set, else the Windows display language. Fyne on
// Windows reads neither: it follows the regional format
// (GetUserDefaultLocaleName), so a Chinese display language with English
// formats would give an English window without this.
func preferredLanguage() string { return locale.Preferred() }
