package ui

import (
	"testing"

	"fyne.io/fyne/v2/test"
)

// TestPickupDeskOpensFullScreen: the pickup desk's window ('gui --desk',
// the Start menu's "qrdesk pickup desk") opens full screen, titled as its
// Start-menu entry; the window did not shrink to a 1024 × 600 screen and
// both windows were titled "qrdesk". The station's window stays a window
// titled "qrdesk".
func TestPickupDeskOpensFullScreen(t *testing.T) {
	a := test.NewTempApp(t)
	desk := newWindow(a, Options{Desk: true})
	if !desk.FullScreen() || desk.Title() != "qrdesk pickup desk" {
		t.Errorf("the pickup desk's window: full screen %v, title %q; want full screen, \"qrdesk pickup desk\"", desk.FullScreen(), desk.Title())
	}
	station := newWindow(a, Options{})
	if station.FullScreen() || station.Title() != "qrdesk" {
		t.Errorf("the station's window: full screen %v, title %q; want a window titled \"qrdesk\"", station.FullScreen(), station.Title())
	}
	override = chineseTexts(t)
	defer func() { override = nil }()
	if zh := newWindow(a, Options{Desk: true}); zh.Title() != "qrdesk 取件台" {
		t.Errorf("the pickup desk's window in Chinese is titled %q", zh.Title())
	}
}
