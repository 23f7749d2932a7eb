// Package locale runs before Fyne reads the locale: under the C or POSIX
// locale (cron, CI, minimal containers) Fyne logs a parse error with a
// source path on every run, even for command-line use. Reading it as
// English avoids that noise; real locales are left alone.
package locale

import "os"

func init() {
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
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
