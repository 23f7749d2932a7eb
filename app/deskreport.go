package app

import (
	"context"
	"errors"
	"time"
)

// DeskReport is what only the desk knows, sent to the central server at
// the end of every sync for its dashboard: the outbox it has yet to have
// accepted and what it printed on its label day. It is informational: the
// server never decides a redemption by it.
type DeskReport struct {
	Date          string `json:"date"`           // the desk's label day, YYYY-MM-DD
	EventsWaiting int    `json:"events_waiting"` // outbox events the server has not accepted yet
	PrintJobs     int    `json:"print_jobs"`     // print jobs finished that day
	LabelsPrinted int    `json:"labels_printed"` // labels printed that day
	Reprints      int    `json:"reprints"`       // of the print jobs, reprints
	At            int64  `json:"at"`             // the desk's clock, Unix seconds
	// RefusedHere are the scans this desk refused on its own that day
	// (offline, or online for a label it already knew was used, disabled
	// or expired, and every forged or unreadable one): the server never
	// sees them. Sent only when there are any, so a server from before
	// the field still takes the report of a desk that refused nothing.
	RefusedHere *DeskRefusals `json:"refused_here,omitempty"`
	// NotUnderstood are the feed changes this desk did not understand, all
	// told (SyncStatus.NotUnderstood, feedunderstood.go): the dashboard
	// flags the desk for an upgrade. Sent only when there are any, as
	// RefusedHere.
	NotUnderstood int `json:"not_understood,omitempty"`
	// OldestWaitingSeconds is how long the oldest event waiting in the
	// outbox has waited (the desk's clock), sent only while one waits, as
	// RefusedHere: the server's metrics show the oldest per site.
	OldestWaitingSeconds int64 `json:"oldest_waiting_seconds,omitempty"`
	// UTCOffset is the desk's time zone, seconds east of UTC at At: the
	// dashboard counts the desk's row of a day over the desk's own day,
	// as the desk counts its figures, wherever the server is. A server
	// from before the field refuses it, as OldestWaitingSeconds.
	UTCOffset *int `json:"utc_offset,omitempty"`
	// DayFrom and DayTo bound the desk's day Date on its clock (Unix
	// seconds, [from, to)): the dashboard counts the desk's row of that
	// date over them, exactly, whatever the offset on other days (a day
	// the clocks change has 23 or 25 hours). Refused by older servers as
	// UTCOffset.
	DayFrom int64 `json:"day_from,omitempty"`
	DayTo   int64 `json:"day_to,omitempty"`
}

// DeskRefusals counts the refusals a desk decided without the server, by
// reason.
type DeskRefusals struct {
	AlreadyUsed int `json:"already_used,omitempty"`
	Disabled    int `json:"disabled,omitempty"`
	Expired     int `json:"expired,omitempty"`
	Unknown     int `json:"unknown,omitempty"` // not known at the desk (issued elsewhere, not synced yet)
	Forged      int `json:"forged,omitempty"`  // a bad signature or unreadable input
}

// Total is the number of refusals.
func (r DeskRefusals) Total() int {
	return r.AlreadyUsed + r.Disabled + r.Expired + r.Unknown + r.Forged
}

// Plus adds two desks' refusals.
func (r DeskRefusals) Plus(o DeskRefusals) DeskRefusals {
	return DeskRefusals{AlreadyUsed: r.AlreadyUsed + o.AlreadyUsed, Disabled: r.Disabled + o.Disabled,
		Expired: r.Expired + o.Expired, Unknown: r.Unknown + o.Unknown, Forged: r.Forged + o.Forged}
}

// Add counts n refusals of outcome o (outcomes that are not refusals a
// desk decides alone are left out).
func (r *DeskRefusals) Add(o Outcome, n int) {
	switch o {
	case OutcomeAlreadyUsed:
		r.AlreadyUsed += n
	case OutcomeDisabled:
		r.Disabled += n
	case OutcomeExpired:
		r.Expired += n
	case OutcomeUnknown:
		r.Unknown += n
	case OutcomeBadSignature, OutcomeMalformed:
		r.Forged += n
	}
}

// report tells the server this desk's figures after a sync. It never fails
// the sync: the figures are informational, and a server older than the
// report (404) or one that refuses it must not hold back the events.
func (s *Service) report(ctx context.Context, ring string, st SyncStatus) {
	r, err := s.DeskReport(ctx, st)
	var sr *ServerRefusal
	if err == nil {
		s.mu.Lock()
		if s.reportNoOldest {
			r.withoutNewerFields()
		}
		s.mu.Unlock()
		if s.reportUnchanged(r) {
			return
		}
		err = s.Remote.Report(ctx, ring, r)
		if errors.As(err, &sr) && sr.Status == 400 && r.hasNewerFields() {
			// A server from before oldest_waiting_seconds or utc_offset
			// refuses a report with a field it does not know: the
			// figures go without them, now and from now on.
			s.mu.Lock()
			s.reportNoOldest = true
			s.mu.Unlock()
			r.withoutNewerFields()
			err = s.Remote.Report(ctx, ring, r)
		}
	}
	switch {
	case err == nil:
		s.mu.Lock()
		s.lastReport = r
		s.mu.Unlock()
	case errors.As(err, &sr) && sr.Status == 404:
		// A server from before the report: nothing to tell it.
	default:
		s.Log.Warn("the desk's figures were not reported to the server", "error", err.Error())
	}
}

// reportUnchanged: the figures are the ones last reported, less than
// reportEvery ago. A desk syncs every 5 s; a thousand desks posting the
// same figures would be 200 writes a second on the server for nothing.
func (s *Service) reportUnchanged(r DeskReport) bool {
	s.mu.Lock()
	last := s.lastReport
	s.mu.Unlock()
	same := last.Date == r.Date && last.EventsWaiting == r.EventsWaiting && last.PrintJobs == r.PrintJobs &&
		last.LabelsPrinted == r.LabelsPrinted && last.Reprints == r.Reprints && last.Refusals() == r.Refusals() && last.NotUnderstood == r.NotUnderstood &&
		last.oldestWaitingAt() == r.oldestWaitingAt() && sameOffset(last.UTCOffset, r.UTCOffset)
	return same && last.At != 0 && r.At >= last.At && r.At-last.At < int64(reportEvery/time.Second)
}

// oldestWaitingAt is the time of the oldest waiting event the report
// tells of (0: none): the same event in two reports is no change, though
// its age grew.
func (r DeskReport) oldestWaitingAt() int64 {
	if r.OldestWaitingSeconds == 0 {
		return 0
	}
	return r.At - r.OldestWaitingSeconds
}

// Refusals are the report's refusals decided at the desk (none when it
// sent none).
func (r DeskReport) Refusals() DeskRefusals {
	if r.RefusedHere == nil {
		return DeskRefusals{}
	}
	return *r.RefusedHere
}

// reportEvery is how often unchanged figures are reported again (the
// dashboard shows when a desk last reported).
const reportEvery = 5 * time.Minute

// DeskReport counts this desk's report: st.Waiting and st.NotUnderstood,
// and the print figures of today (as the close of the day counts them).
func (s *Service) DeskReport(ctx context.Context, st SyncStatus) (DeskReport, error) {
	now := s.ClockNow(ctx) // its day and time on the server's clock when the desk can tell
	day := Day(now)
	_, offset := now.Zone()
	r := DeskReport{Date: FormatDate(day), EventsWaiting: st.Waiting, NotUnderstood: st.NotUnderstood, At: now.Unix(), UTCOffset: &offset,
		DayFrom: day.Unix(), DayTo: day.AddDate(0, 0, 1).Unix()}
	if st.Waiting > 0 && st.OldestWaitingAt > 0 {
		r.OldestWaitingSeconds = max(r.At-st.OldestWaitingAt, 1)
	}
	s.mu.Lock()
	c, gen := s.printed, s.printGen
	s.mu.Unlock()
	if c.counted && c.gen == gen && c.date == r.Date && !now.Before(c.at) && now.Sub(c.at) < printedFor {
		r.PrintJobs, r.LabelsPrinted, r.Reprints = c.jobs, c.labels, c.reprints
		r.RefusedHere = nonZero(c.refused)
		return r, nil
	}
	f, err := s.Store.DayFigures(ctx, r.Date, "", day.Unix(), day.AddDate(0, 0, 1).Unix())
	if err != nil {
		return DeskReport{}, err
	}
	r.PrintJobs, r.LabelsPrinted, r.Reprints = f.PrintJobs, f.Printed, f.Reprints
	r.RefusedHere = nonZero(f.RefusedHere)
	s.mu.Lock()
	// With the generation read before counting: a print that finished
	// meanwhile makes the next report count again.
	s.printed = printedCache{counted: true, gen: gen, date: r.Date, at: now, jobs: r.PrintJobs, labels: r.LabelsPrinted, reprints: r.Reprints, refused: f.RefusedHere}
	s.mu.Unlock()
	return r, nil
}

// printedFor is how long the day's print figures are reused between
// reports. The window syncs every 5 s and counting them is the close of
// the day's count (about 50 ms on a day of 100,000 labels,
// BenchmarkDeskReport); a print of this process counts again at once, one
// of another process on the same database (the CLI beside the window)
// within this time.
const printedFor = time.Minute

// printedCache is the day's print figures last counted for the report.
type printedCache struct {
	counted                bool
	gen                    uint64 // Service.printGen when counted
	date                   string
	at                     time.Time
	jobs, labels, reprints int
	refused                DeskRefusals
}

func nonZero(r DeskRefusals) *DeskRefusals {
	if r.Total() == 0 {
		return nil
	}
	return &r
}

// printedChanged makes the next report count the day's figures again (a
// print finished, or the desk refused a scan on its own).
func (s *Service) printedChanged() {
	s.mu.Lock()
	s.printGen++
	s.mu.Unlock()
}

// hasNewerFields: the report carries fields a server from before them
// refuses (oldest_waiting_seconds, utc_offset, day_from, day_to).
func (r DeskReport) hasNewerFields() bool {
	return r.OldestWaitingSeconds != 0 || r.UTCOffset != nil || r.DayFrom != 0 || r.DayTo != 0
}

// withoutNewerFields leaves them out, for such a server.
func (r *DeskReport) withoutNewerFields() {
	r.OldestWaitingSeconds, r.UTCOffset, r.DayFrom, r.DayTo = 0, nil, 0, 0
}

// sameOffset: two reports name the same time zone offset (or none).
func sameOffset(a, b *int) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }
