package central

import (
	"slices"
	"strings"
	"time"

	"qrdesk/app"
	"qrdesk/protocol"
)

// What the manager's dashboard reads: a day across desks, the desks'
// state, conflicts with their resolutions, a label's history.

// DeskDay is one desk's day: labels it issued, and the outcomes of the
// redemptions it asked the server for (refusals by outcome).
type DeskDay struct {
	Station   string
	Site      string // the name of the desk's site
	Issued    int
	Redeemed  int
	Conflicts int                      // labels it redeemed offline that another desk had used
	Refused   map[protocol.Outcome]int // outcome (already_used, disabled, expired, rejected) → count
	// RefusedHere are the refusals the desk decided without the server,
	// as it reported them (the server never saw those scans).
	RefusedHere app.DeskRefusals
	// What the desk reported it printed that day (its latest report of
	// the day); Reported is false when it sent none.
	Reported      bool
	PrintJobs     int
	LabelsPrinted int
	Reprints      int
}

// RefusedTotal is the number of redemptions the server refused.
func (d DeskDay) RefusedTotal() int {
	n := 0
	for _, v := range d.Refused {
		n += v
	}
	return n
}

// RefusalOutcomes are the outcomes of a refused redemption, in the order a
// report lists them.
var RefusalOutcomes = []protocol.Outcome{protocol.OutcomeAlreadyUsed, protocol.OutcomeDisabled, protocol.OutcomeExpired, protocol.OutcomeRejected}

// QuarterSeconds is the bucket of DayActivity.Quarters: every time zone's
// offset is a multiple of a quarter hour, so quarters fold into local hours
// anywhere.
const QuarterSeconds = 900

// DayActivity is a day across desks.
type DayActivity struct {
	Desks    []DeskDay     // by station name
	Quarters map[int64]int // redemptions per quarter hour: Unix time / QuarterSeconds → count
}

// Total adds up the desks.
func (d DayActivity) Total() DeskDay {
	t := DeskDay{Refused: map[protocol.Outcome]int{}}
	for _, k := range d.Desks {
		t.Issued += k.Issued
		t.Redeemed += k.Redeemed
		t.Conflicts += k.Conflicts
		for o, n := range k.Refused {
			t.Refused[o] += n
		}
		t.RefusedHere = t.RefusedHere.Plus(k.RefusedHere)
		t.Reported = t.Reported || k.Reported
		t.PrintJobs += k.PrintJobs
		t.LabelsPrinted += k.LabelsPrinted
		t.Reprints += k.Reprints
	}
	return t
}

// AddPrinted puts the desks' reports of the day beside the server's
// counts; a desk that only printed gets a line of its own.
func (d *DayActivity) AddPrinted(reports []DeskStatus) {
	for _, r := range reports {
		i := slices.IndexFunc(d.Desks, func(k DeskDay) bool { return k.Station == r.Station })
		if i < 0 {
			d.Desks = append(d.Desks, DeskDay{Station: r.Station, Site: r.Site, Refused: map[protocol.Outcome]int{}})
			i = len(d.Desks) - 1
		}
		k := &d.Desks[i]
		k.Reported, k.PrintJobs, k.LabelsPrinted, k.Reprints = true, r.PrintJobs, r.LabelsPrinted, r.Reprints
		k.RefusedHere = r.Refusals()
	}
	slices.SortFunc(d.Desks, func(a, b DeskDay) int { return strings.Compare(a.Station, b.Station) })
}

// PerHour folds the quarters into the hours of the local day that starts
// at day (23 or 25 of them when the clocks change).
func (d DayActivity) PerHour(day time.Time) []int {
	end := day.AddDate(0, 0, 1)
	hours := make([]int, int(end.Sub(day)/time.Hour))
	for q, n := range d.Quarters {
		at := time.Unix(q*QuarterSeconds, 0)
		if at.Before(day) || !at.Before(end) {
			continue
		}
		hours[int(at.Sub(day)/time.Hour)] += n
	}
	return hours
}

// DeskState is an enrolled desk as the server last saw it.
type DeskState struct {
	Station
	LastSeenAt int64 // its latest feed read or event (0: never)
	FeedAck    int64 // how far it has read the change feed
	// EventsWaiting is its outbox by its latest report: events the server
	// had not accepted yet when it last synced.
	EventsWaiting int
	StatusAt      int64 // when its latest report arrived (0: it never reported)
	// NotUnderstood is how many of the feed's changes the desk did not
	// understand, by its latest report: a desk to upgrade.
	NotUnderstood int
	// Version is what the desk last said it runs.
	Version DeskVersion
}

// FeedBehind is how many feed positions the desk has yet to read (head is
// the feed's head).
func (d DeskState) FeedBehind(head int64) int64 {
	return max(0, head-d.FeedAck)
}

// OnlineWithin is how recently a desk must have been seen to count as
// online: a desk that follows the feed asks at least every 25 seconds.
const OnlineWithin = 2 * time.Minute

// Online reports whether the desk was seen within OnlineWithin of now.
func (d DeskState) Online(now time.Time) bool {
	return d.LastSeenAt > 0 && now.Sub(time.Unix(d.LastSeenAt, 0)) <= OnlineWithin
}

// Resolution is an administrator's note that a conflict was dealt with.
// Resolutions are only ever added: the audit trail keeps every one.
type Resolution struct {
	Admin string
	Note  string
	At    int64
}

// MaxNote bounds a resolution's note (characters).
const MaxNote = 500

// ConflictRecord is a conflict with its id and resolutions (oldest first).
type ConflictRecord struct {
	ID int64
	protocol.Conflict
	Resolutions []Resolution
	// Site is the name of the site of the conflict's label.
	Site string
	// Sites are the sites the conflict belongs to: its label's and the
	// sites the two desks that took part were in when it was recorded
	// (a desk moved since leaves them as they were), by name. Reports and
	// pages by site list the conflict in each.
	Sites []string
}

// In reports whether the conflict belongs to the site of this name.
func (c ConflictRecord) In(site string) bool {
	for _, s := range c.Sites {
		if strings.EqualFold(s, site) {
			return true
		}
	}
	return strings.EqualFold(c.Site, site)
}

// Resolved reports whether an administrator marked the conflict resolved.
func (c ConflictRecord) Resolved() bool { return len(c.Resolutions) > 0 }

// EventRecord is an event as the server recorded it.
type EventRecord struct {
	EventID    string
	Station    string
	Kind       protocol.Kind
	Operator   string
	At         int64 // the desk's clock
	ReceivedAt int64 // the server's clock
	Offline    bool
	Outcome    protocol.Outcome
	Reason     string
	Flag       string
}

// CodeHistory is everything the server knows of one label.
type CodeHistory struct {
	Code protocol.CodeState
	// Site is the name of the label's site (the site of the desk that
	// uploaded it).
	Site string
	// Batch is the label's batch number at the desk that issued it (0:
	// uploaded by a desk before protocol.RefVersion).
	Batch     int64
	Events    []EventRecord // in the order the server received them
	Conflicts []ConflictRecord
}

// NormalizeCode reads a code as a person typed or a scanner sent it, and
// returns its printed form.
func NormalizeCode(s string) (string, error) {
	c, err := app.Parse(app.Normalize(s))
	if err != nil {
		return "", Badf("%.80q is not a label code: type or scan the whole code, e.g. WH-261129-A0001-AX27VGKZJTLY-A9TF3Z2MT", s)
	}
	return c.String(), nil
}

// NotHeld is what the server can tell of a label it does not hold, from
// the label's shape alone: the server has no key ring (the key never
// leaves the desks), so it cannot check the signature, and a label it
// does not hold is either not uploaded yet or not genuine.
type NotHeld struct {
	Code string // printed form
	// Letter and LabelDate are the station letter and label date the
	// code carries ("" for a label printed without date and serial).
	Letter    string
	LabelDate string
	// Desk is the desk that holds Letter (nil: no desk has it, or the
	// label carries none).
	Desk *DeskState
}

// ExplainNotHeld reads what c says of where it comes from, with the desk
// of its letter among desks (one not revoked first).
func ExplainNotHeld(c app.Code, desks []DeskState) NotHeld {
	n := NotHeld{Code: c.String()}
	if !c.HasSerial() {
		return n
	}
	n.Letter, n.LabelDate = c.Station, c.LabelDate()
	for i := range desks {
		if desks[i].Letter == c.Station && (n.Desk == nil || n.Desk.RevokedAt != 0) {
			n.Desk = &desks[i]
		}
	}
	return n
}
