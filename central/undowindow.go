package central

import (
	"fmt"
	"time"

	"qrdesk/app"
	"qrdesk/protocol"
)

// UndoWindowSlack is how far past its desk's undo window the server still
// takes an undo, in seconds: the time an undo sent at once takes to arrive,
// and the rounding of clock offsets to whole seconds.
const UndoWindowSlack = 30

// Redemption is what the server holds of the redemption an undo takes
// back: its event's time as the desk said it (At), its decided time
// (DecidedAt: the server's clock for an online one, the corrected time
// for an offline one) and its flags.
type Redemption struct {
	At, DecidedAt int64
	Offline       bool
	Flags         Flags
}

// onServerClock reports whether the redemption's decided time is on the
// server's clock: an online one, or an offline one corrected by an offset
// the server trusted. An offline one kept at the desk's time (no offset,
// or one it could not trust) is on the desk's clock.
func (r Redemption) onServerClock() bool {
	return !r.Offline || (r.DecidedAt != r.At && !r.Flags.Has(FlagsClock))
}

// UndoTooLate says why the server refuses an undo as past its desk's undo
// window ("" when it is within it). The desk judges the window before it
// undoes, but on its own clock, and a clock set back while the program was
// stopped (no process saw it happen) passes an undo hours late: the label
// would be handed over again at another desk with no conflict anywhere. So
// the server judges too, on its own clock:
//   - the window is the one the undo carries (protocol.UndoWindowVersion);
//     an undo from an older desk carries none and is judged against
//     app.MaxUndoWindow, the largest a desk may set;
//   - the undo's time is the desk's time corrected by the offset it sent
//     when the server trusts that offset (never later than now), else the
//     time the server received it;
//   - a redemption kept on the desk's clock (offline, no trusted offset)
//     is compared on the desk's clock, as the desk did, and an undo dated
//     before it says the desk's clock went back.
func UndoTooLate(ev protocol.Event, red Redemption, now int64) string {
	window := ev.UndoWindow
	if window <= 0 {
		window = int64(app.MaxUndoWindow / time.Second)
	}
	limit := window + UndoWindowSlack
	words := app.FormatUndoWindow(time.Duration(window) * time.Second)
	if !red.onServerClock() {
		switch d := ev.At - red.At; {
		case d < -UndoWindowSlack:
			return fmt.Sprintf("the desk's clock went back since the redemption (redeemed at %s, undone at %s by the desk's clock): the server cannot tell when the undo was made, so the label stays used", formatAt(red.At), formatAt(ev.At))
		case d > limit:
			return fmt.Sprintf("too late: the undo came %s after the redemption (%s by the desk's clock), past this desk's undo window of %s; the label stays used", app.FormatDuration(time.Duration(d)*time.Second), formatAt(red.At), words)
		}
		return ""
	}
	at := now
	if ev.ClockOffsetMS != nil && app.AgeTrusted(ev.ClockAge) {
		at = min(now, saturatingAdd(ev.At, app.OffsetSeconds(*ev.ClockOffsetMS)))
	}
	if d := at - red.DecidedAt; d > limit {
		return fmt.Sprintf("too late: the undo came %s after the redemption (%s by the server's clock), past this desk's undo window of %s; the label stays used (was the desk's clock set back?)", app.FormatDuration(time.Duration(d)*time.Second), app.FormatTime(red.DecidedAt), words)
	}
	return ""
}
