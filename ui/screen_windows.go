package ui

import (
	"fyne.io/fyne/v2"
	"golang.org/x/sys/windows"
)

var getSystemMetrics = windows.NewLazySystemDLL("user32.dll").NewProc("GetSystemMetrics")

// The client area of a full-screen window on the primary screen: the
// screen less the taskbar and a title bar.
const (
	smCXFullScreen = 16
	smCYFullScreen = 17
)

// screenRoom is the room a window has on the primary screen (0 × 0 if
// Windows does not say): Windows places a new window where it is told, so
// one larger than the screen opens partly off it.
func screenRoom() fyne.Size {
	if getSystemMetrics.Find() != nil {
		return fyne.Size{}
	}
	w, _, _ := getSystemMetrics.Call(smCXFullScreen)
	h, _, _ := getSystemMetrics.Call(smCYFullScreen)
	return fyne.NewSize(float32(w), float32(h))
}
