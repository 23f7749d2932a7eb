package ui

import "fyne.io/fyne/v2"

// onUI runs f on the window's UI goroutine, after the caller's work: it is
// fyne.Do in the program. The tests put a queue in its place that they run
// on their own goroutine (ui_test.go's runQueuedUI), because Fyne's test
// driver runs fyne.Do at once on the calling goroutine: a background job
// finishing while a test taps a button, or while another job finishes,
// would touch one widget from two goroutines (CI saw Fyne's text cache
// fail with "concurrent map read and map write").
var onUI = fyne.Do
