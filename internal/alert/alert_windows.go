package alert

import (
	"strings"

	"golang.org/x/sys/windows"
)

func init() { Func = show }

// show blocks until the dialog is closed (OK, Enter or Esc). MB_TOPMOST and
// MB_SETFOREGROUND: started from the Start menu with no window of its own,
// the dialog must not open behind another program's.
func show(title, text string) {
	t, err1 := windows.UTF16PtrFromString(strings.ReplaceAll(title, "\x00", ""))
	m, err2 := windows.UTF16PtrFromString(strings.ReplaceAll(text, "\x00", ""))
	if err1 != nil || err2 != nil {
		return
	}
	windows.MessageBox(0, m, t, windows.MB_OK|windows.MB_ICONERROR|windows.MB_SETFOREGROUND|windows.MB_TOPMOST)
}
