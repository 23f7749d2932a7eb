// Package locale runs before Fyne reads the locale: under the C or POSIX
// locale (cron, CI, minimal containers) Fyne logs a parse error with a
// source path on every run, even for command-line use. Reading it as
// English avoids that noise; real locales are left alone.
//
// Preferred says which language the user asked for: the POSIX variables
// where one is set, else on Windows the Windows display (UI) language.
package locale

import (
	"os"
	"strings"
)

// envKeys are the variables that name the messages' language, strongest
// first.
var envKeys = []string{"LC_ALL", "LC_MESSAGES", "LANG"}

func init() {
	for _, k := range envKeys {
		switch v := os.Getenv(k); v {
		case "":
			continue
		case "C", "POSIX", "C.UTF-8", "C.utf8":
			os.Setenv(k, "en_US.UTF-8")
		default:
			return
		}
	}
}

// Preferred is the language the user asked for as a BCP 47 tag ("zh-CN",
// "en-US"): from LC_ALL, LC_MESSAGES or LANG, the first one set; when none
// is, the Windows display language on Windows (uiLanguage), "" elsewhere
// (Fyne then reads the system locale itself).
func Preferred() string {
	for _, k := range envKeys {
		if v := os.Getenv(k); v != "" {
			return Tag(v)
		}
	}
	return uiLanguage()
}

// Tag turns a POSIX locale name ("zh_CN.UTF-8", "de_DE@euro", "C") into a
// BCP 47 tag ("zh-CN", "de-DE", "en").
func Tag(posix string) string {
	if i := strings.IndexAny(posix, ".@"); i >= 0 {
		posix = posix[:i]
	}
	switch posix {
	case "", "C", "POSIX":
		return "en"
	}
	return strings.ReplaceAll(posix, "_", "-")
}
