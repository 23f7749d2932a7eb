package faultsim

import (
	"context"
	"fmt"
	"strings"
	"time"

	"qrdesk/app"
)

// The staff list's seams with the close of the day and with itself: a
// removed clerk's close with expiry (StaffClose) and a clerk removed at a
// desk offline while the administrator removes and adds the clerk again
// (Rehire).

// staffClose takes the desk offline and closes the day with its clerk,
// removed from the staff list, as the operator: once the removal is older
// than what the server's reading of a desk's clock may blur (clockSlack),
// so that the close is after it on every clock.
func (r *run) staffClose(ctx context.Context, g int, d *desk) (string, error) {
	d.proxy.setMode(Mode{Kind: Refuse})
	r.mu.Lock()
	at, ok := r.topo.removed[d.idx]
	r.mu.Unlock()
	if !ok {
		return "", fmt.Errorf("desk %s: its clerk's close, but no removal of the clerk before it", deskName(d.idx))
	}
	if wait := time.Until(at.Add(clockSlack + time.Second)); wait > 0 {
		time.Sleep(wait)
	}
	out, err := r.closeDay(ctx, g, d)
	return out + " (offline, by " + clerk(d.idx) + ", removed at " + at.Format("15:04:05") + ")", err
}

// rehire takes the desk offline, where its manager removes the clerk (at
// the desk's clock); then the administrator removes the clerk at the
// server and adds it again, a new record made after the desk's removal.
// The desk's removal reaches the server later: it is of the earlier
// record, and the new one must stay (InvRehired).
func (r *run) rehire(ctx context.Context, g int, d *desk) (string, error) {
	d.proxy.setMode(Mode{Kind: Refuse})
	name := clerk(d.idx)
	var out []string
	began := time.Now()
	if _, err := d.svc.Operators().Remove(ctx, name, "manager "+deskName(d.idx)); err != nil {
		out = append(out, "the desk refused to remove "+name+": "+app.ErrorMessage(err))
	} else {
		out = append(out, "the desk removed "+name+" (offline)")
	}
	// The administrator acts after the desk's removal on every clock: the
	// server reads the desk's removal on its corrected clock, which may be
	// clockSlack off (as staffClose waits), and keeps whole seconds.
	if wait := time.Until(began.Add(clockSlack + time.Second)); wait > 0 {
		time.Sleep(wait)
	}
	if err := r.srv.staff(ctx, "remove", name); err != nil {
		out = append(out, "the server refused to remove it: "+oneLine(err))
	} else {
		out = append(out, "the administrator removed it")
	}
	nextSecond(time.Now())
	if err := r.srv.staff(ctx, "add", name); err != nil {
		// Not added again (the harness's request timed out): nothing
		// for InvRehired to hold.
		out = append(out, "the server refused to add it again: "+oneLine(err))
		return strings.Join(out, "; "), nil
	}
	out = append(out, "and added it again")
	what := strings.Join(out, "; ")
	r.mu.Lock()
	r.topo.rehires = append(r.topo.rehires, rehireRecord{Group: g, Desk: d.idx, What: what})
	r.mu.Unlock()
	return what, nil
}

// nextSecond waits until the process's clock is in a whole second after t's.
func nextSecond(t time.Time) {
	time.Sleep(time.Until(time.Unix(t.Unix()+1, 0)))
}
