//go:build !windows

package ui

// preferredLanguage is "": outside Windows, Fyne reads LANG as the user
// set it.
func preferredLanguage() string { return "" }
