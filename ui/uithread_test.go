package ui

import "sync"

// uiQueue holds the work background jobs handed to the widgets (onUI) until
// the test's goroutine runs it: in the program Fyne runs it on its one UI
// goroutine; in a test the test's goroutine is that goroutine.
var uiQueue struct {
	mu   sync.Mutex
	work []func()
}

func init() {
	onUI = func(f func()) {
		uiQueue.mu.Lock()
		uiQueue.work = append(uiQueue.work, f)
		uiQueue.mu.Unlock()
	}
}

// runQueuedUI runs the queued work in order, and what that work queues in
// turn, until none is left; it says whether any ran.
func runQueuedUI() bool {
	ran := false
	for {
		uiQueue.mu.Lock()
		work := uiQueue.work
		uiQueue.work = nil
		uiQueue.mu.Unlock()
		if len(work) == 0 {
			return ran
		}
		for _, f := range work {
			f()
		}
		ran = true
	}
}

// settleUI waits until the window's background jobs are done and their work
// has reached the widgets (which may start more jobs).
func settleUI(e *env) {
	for {
		e.jobs.Wait()
		if !runQueuedUI() {
			return
		}
	}
}

// quiet waits until nothing of this window's runs on its own: the screens'
// background work done and shown, the Scan screen's return to idle
// cancelled. Tests call it before the next window is built.
func (ui *mainUI) quiet() {
	ui.scan.stopIdleTimer()
	settleUI(ui.env)
	uiQueue.mu.Lock()
	// what the window's own loops (sync banner, sign-in checks) queued
	// since: this window is done, so it must not reach the next test's
	uiQueue.work = nil
	uiQueue.mu.Unlock()
}
