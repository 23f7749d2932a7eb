package central

import (
	"fmt"
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
// (CloseExpiryRefusal), closed by a desk not ahead of another desk of its
// site (CloseZoneRefusal); any other answer is not_expired with the reason and
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

// DeskZone is a desk's time zone as its latest report told the server:
// seconds east of UTC (the server's zone when it never said).
type DeskZone struct {
	Station string
	Offset  int
}

// CloseZoneRefusal is why the server does not apply a close's expiry made
// by closer, a desk of a site whose other desks are others ("" when it
// applies it). A close ends a site's day for every desk of the site, but
// the desk that closes knows only its own clock: one whose time zone is
// ahead of another desk of its site (a desk set to a zone far east of the
// warehouse it stands in) closes its date in the site's morning, and would
// expire the labels the other desks issued for that afternoon. So a close
// speaks for the site only from a desk that is not ahead of any of its
// site's desks: the westmost desk's day ends last, and when it closes the
// date is over everywhere in the site. The others' closes still record
// their figures; their expiries are refused, naming the desk behind.
func CloseZoneRefusal(closer DeskZone, others []DeskZone) string {
	var behind *DeskZone
	for i, o := range others {
		if o.Station != closer.Station && o.Offset < closer.Offset && (behind == nil || o.Offset < behind.Offset) {
			behind = &others[i]
		}
	}
	if behind == nil {
		return ""
	}
	ahead := time.Duration(closer.Offset-behind.Offset) * time.Second
	return "this desk keeps " + FormatZone(closer.Offset) + ", " + app.FormatDuration(ahead) + " ahead of " + behind.Station + " of its site (" + FormatZone(behind.Offset) +
		"): its day ends before the site's, so its close expires nothing; the label stays unused (check this desk's time zone; a desk keeping the site's time closes the site's day)"
}

// FormatZone writes a UTC offset in seconds as UTC+14:00, UTC-03:30.
func FormatZone(offset int) string {
	sign := '+'
	if offset < 0 {
		sign, offset = '-', -offset
	}
	return fmt.Sprintf("UTC%c%02d:%02d", sign, offset/3600, offset%3600/60)
}
