//go:build !windows

package locale

// uiLanguage is "" outside Windows: there the POSIX variables are the
// user's choice, and Fyne reads them itself.
func uiLanguage() string { return "" }
