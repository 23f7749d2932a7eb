package faultsim

import (
	"fmt"
	"time"

	"qrdesk/app"
	"qrdesk/protocol"
)

// The invariants about desk clocks (InvExpiryFlagged, InvConflictDay): the
// desks' clocks are skewed behind and ahead by the schedule, the server's
// is the process's, and each scan's true time is known (verdict.Began).

// clockFigures counts what the clock invariants looked at, so a run shows
// they were exercised.
type clockFigures struct {
	PastExpiry, PastExpiryFlagged int // offline redemptions the server took past expiry (by the server's clock)
	SkewedOffline                 int // offline redemptions at a desk whose clock was skewed
	Conflicts, ConflictsFlagged   int // conflicts, those whose record's desk time was set aside
}

func (f clockFigures) String() string {
	return fmt.Sprintf("%d offline redemptions at a skewed clock, %d past expiry (%d flagged), %d conflicts (%d with the record's clock flagged), ",
		f.SkewedOffline, f.PastExpiry, f.PastExpiryFlagged, f.Conflicts, f.ConflictsFlagged)
}

// expiryFlagged: every offline redemption the server took of a label past
// its expiry by the server's clock carries a flag.
func (c *checker) expiryFlagged() {
	f := &c.r.clocks
	for _, e := range c.server.Events {
		if e.Kind != protocol.KindRedeem || e.Outcome != protocol.OutcomeRedeemed || !e.Offline {
			continue
		}
		code, ok := c.server.Codes[e.Code]
		v, scanned := c.traces[e.EventID]
		if !ok || !scanned {
			continue
		}
		if v.Skew != 0 {
			f.SkewedOffline++
		}
		late := v.Began.Sub(time.Unix(code.ExpireAt, 0))
		if code.ExpireAt == 0 || late <= clockSlack {
			continue
		}
		f.PastExpiry++
		if e.Flags != 0 {
			f.PastExpiryFlagged++
		} else {
			c.fail(InvExpiryFlagged, v.Label, "desk %s redeemed it offline %v after its expiry %s by the server's clock (g%02d, desk clock %s); the server took it unflagged (event %s at %s)",
				deskName(v.Desk), late.Round(time.Millisecond), clock(code.ExpireAt), v.Group+1, clock(v.At), e.EventID, clock(e.At))
		}
	}
}

// conflictDay: every conflict's redemption of record is filed at its true
// time (within clockSlack), unless the server flagged its desk's time.
func (c *checker) conflictDay() {
	for _, k := range c.server.Conflicts {
		e, ok := c.events[k.FirstEvent]
		v, scanned := c.traces[k.FirstEvent]
		if !ok || !scanned {
			continue
		}
		c.r.clocks.Conflicts++
		if clockFlagged(e.Flags) {
			c.r.clocks.ConflictsFlagged++
			continue
		}
		filed := time.Unix(k.FirstAt, 0)
		from, to := v.Began.Add(-clockSlack), v.Began.Add(v.Took+clockSlack)
		if filed.Before(from) || filed.After(to) {
			c.fail(InvConflictDay, v.Label, "conflict of %s filed at %s (day %s), but its redemption of record %s by %s was scanned at %s by the server's clock (desk %s's clock said %s)",
				c.codeName(k.Code), clock(k.FirstAt), filed.Format(app.DateLayout), k.FirstEvent, k.FirstStation, v.Began.Format("15:04:05"), deskName(v.Desk), clock(v.At))
		}
	}
}
