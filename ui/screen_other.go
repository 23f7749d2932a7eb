//go:build !windows

package ui

import "fyne.io/fyne/v2"

// screenRoom is the room a window has on the screen, or 0 × 0 where it is
// not known before the window is drawn: Linux desktops' window managers
// fit a new window to the screen themselves.
func screenRoom() fyne.Size { return fyne.Size{} }
