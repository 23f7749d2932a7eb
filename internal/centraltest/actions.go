// What a test does at a desk or to the server beyond redeeming and syncing.

package centraltest

import (
	"context"
	"qrdesk/app"
	"testing"
)

// Replace replaces code at the desk and returns the new label.
func (d *Desk) Replace(t testing.TB, code, operator string) string {
	t.Helper()
	r, err := d.Svc.Replace(context.Background(), app.ReplaceRequest{Code: code, Reason: "label torn", Operator: operator})
	if err != nil {
		t.Fatalf("replace %s: %v", code, err)
	}
	return r.New.Code
}

// Offline runs f with the desk cut off from the server (it decides alone).
func (d *Desk) Offline(f func()) {
	remote := d.Svc.Remote
	d.Svc.Remote = nil
	defer func() { d.Svc.Remote = remote }()
	f()
}

// Undo undoes the desk's redemption of code as supervisor boss.
func (d *Desk) Undo(t testing.TB, code, reason string) app.Undo {
	t.Helper()
	u, err := d.Svc.UndoRedemption(context.Background(), app.UndoRequest{Code: code, Reason: reason, Operator: "boss"})
	if err != nil {
		t.Fatalf("undo %s: %v", code, err)
	}
	return u
}

// Status is the desk's own copy of code's status.
func (d *Desk) Status(t testing.TB, code string) app.Status {
	t.Helper()
	v, err := d.Svc.Check(context.Background(), code)
	if err != nil || v.Record == nil {
		t.Fatalf("check %s: %+v %v", code, v, err)
	}
	return v.Record.Status
}

// CloseDay closes the desk's day as boss, expiring the unused labels when
// expire is set.
func (d *Desk) CloseDay(t testing.TB, expire bool) app.DayClose {
	t.Helper()
	dc, err := d.Svc.CloseDay(context.Background(), app.CloseDayRequest{ExpireUnused: expire, Operator: "boss"})
	if err != nil {
		t.Fatalf("close-day: %v", err)
	}
	return dc
}

// Report is a desk's status report of the harness's day.
func (h *Harness) Report(waiting, jobs, labels, reprints int, at int64) app.DeskReport {
	return app.DeskReport{Date: app.FormatDate(h.Now), EventsWaiting: waiting, PrintJobs: jobs, LabelsPrinted: labels, Reprints: reprints, At: at}
}

// Compact stores the desks' feed positions and compacts, as the server
// does every ten minutes.
func (h *Harness) Compact(t testing.TB, staleBefore int64) int64 {
	t.Helper()
	if err := h.API.FlushAcks(context.Background()); err != nil {
		t.Fatal(err)
	}
	n, err := h.DB.Compact(context.Background(), staleBefore)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
