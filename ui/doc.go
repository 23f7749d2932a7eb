// Package ui is qrdesk's Fyne window: one screen per file, each a struct
// holding its widgets and handlers. All database work runs off the UI
// goroutine and comes back through fyne.Do.
package ui
