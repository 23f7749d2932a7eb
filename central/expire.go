package central

import (
	"time"

	"qrdesk/app"
)

// The day's expiry travels as one event per label (kind expire): the
// server expires a label only while it is unused there, so a label used
// meanwhile at another desk stays used, and every desk follows the server
// through the feed.
//
// A close's expiry is a request, not an order: the desk that closes its
// day knows neither the other sites nor the true day (its clock or time
// zone may be a day ahead). The server applies it only to a label of the
// closing desk's site whose day has begun on the server's clock
// (CloseExpiryRefusal); any other answer is not_expired with the reason and
// the label's status at the server, which the closing desk's copy takes.

// ClosedLabel is what the server holds of a label a close asks to expire.
type ClosedLabel struct {
	Code string
	// Day is the label's day (YYYY-MM-DD) as printed in its code; "" for
	// a label without a date in it (the server then cannot tell its day).
	Day  string
	Site string // the name of the label's site
}

// CloseSiteRefusal says why a close's expiry made by a desk that knew it
// was in site closedIn ("": not known) is not applied by a server that
// holds that desk in site deskSite ("" when the event may go on): the desk
// moved between its close and the event's arrival, or a restore of the
// server lost its move. Neither record is sure then, and an expiry that
// cannot be taken back is made only where both agree. A site renamed since
// the close is the same site: the caller gives its current name for a
// former one.
func CloseSiteRefusal(closedIn, deskSite string) string {
	if closedIn == "" || deskSite == "" || closedIn == deskSite {
		return ""
	}
	return "the day was closed at a desk of site " + closedIn + ", and the server holds this desk in site " + deskSite + ": the close expires nothing there; the label stays as it is at the server (a desk of its site closes that site's day)"
}

// CloseExpiryRefusal is why the server does not apply a close's expiry of
// label l sent by a desk of site closerSite at the server's time now (its
// own clock and time zone), or "" when it applies it: a label of another
// site is that site's to close, and a label of a day that has not begun at
// the server is not expired by a desk whose clock or time zone is ahead.
// A day already over may be closed (a desk closes yesterday late).
func CloseExpiryRefusal(l ClosedLabel, closerSite string, now time.Time) string {
	if l.Site != "" && closerSite != "" && l.Site != closerSite {
		return "label of site " + l.Site + ": a desk of site " + closerSite + " does not expire it by closing its day; it stays as it is at the server (a desk of " + l.Site + " closes that site's day)"
	}
	if today := now.Format(app.DateLayout); l.Day != "" && l.Day > today {
		return "label of " + l.Day + ", a day that has not begun at the server (the server's day is " + today + "): check this desk's clock and time zone; the label stays unused"
	}
	return ""
}
