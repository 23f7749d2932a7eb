package ui

import (
	"context"
	"image/color"
	"strings"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"

	"qrdesk/app"
	"qrdesk/protocol"
)

// conflictNotice is the red bar on the Scan screen after a sync brought a
// conflict (a label redeemed at two desks while offline): the picker at the
// counter sees it, not only whoever opens Today. It stays until Today, which
// lists the conflicts, is opened.
type conflictNotice struct {
	env  *env
	box  *fyne.Container
	text *wrapText

	mu   sync.Mutex
	seen int // conflicts known when the window started or Today was last opened
}

func newConflictNotice(e *env) *conflictNotice {
	n := &conflictNotice{env: e, text: newWrapText(color.White)}
	n.text.TextSize = 18
	n.text.TextStyle = fyne.TextStyle{Bold: true}
	n.box = container.NewStack(canvas.NewRectangle(colorRefused), container.NewPadded(n.text))
	n.box.Hide()
	return n
}

// baseline counts the conflicts known now, off the UI goroutine: only the
// ones a later sync brings are announced.
func (n *conflictNotice) baseline(ctx context.Context) {
	list, err := n.env.svc.Conflicts(ctx)
	if err != nil {
		return
	}
	n.mu.Lock()
	n.seen = len(list)
	n.mu.Unlock()
}

// check, off the UI goroutine after a sync, shows the conflicts not seen yet.
func (n *conflictNotice) check(ctx context.Context) {
	list, err := n.env.svc.Conflicts(ctx)
	if err != nil {
		return
	}
	n.mu.Lock()
	seen := n.seen
	n.mu.Unlock()
	if len(list) <= seen {
		return
	}
	text := conflictNoticeText(list, seen)
	onUI(func() {
		n.text.Text = text
		n.text.Refresh()
		n.box.Show()
		n.box.Refresh()
	})
}

// acknowledge hides the bar: Today, which lists the conflicts, is open.
func (n *conflictNotice) acknowledge() {
	n.env.background(func() {
		n.baseline(context.Background())
		onUI(n.box.Hide)
	})
}

// conflictNoticeText names the conflicts after the first seen: each label
// as printed and the two desks, then what to do.
func conflictNoticeText(list []protocol.Conflict, seen int) string {
	var labels []string
	for _, k := range list[seen:] {
		labels = append(labels, T("{{.Label}} (redeemed at {{.First}} and at {{.Second}})",
			map[string]any{"Label": serialName(k.Code), "First": k.FirstStation, "Second": k.SecondStation}))
	}
	return T("CONFLICT: a label was redeemed twice at different desks while offline: {{.Labels}}. Tell the supervisor; the details are on Today.",
		map[string]any{"Labels": strings.Join(labels, "; ")})
}

// serialName is a label as printed: station letter and serial (A0007), or
// the code's random part for a label without a serial; the code itself if
// it does not parse.
func serialName(code string) string {
	c, err := app.Parse(app.Normalize(code))
	if err != nil {
		return code
	}
	if !c.HasSerial() {
		return c.Random
	}
	return c.Station + c.SerialText()
}
