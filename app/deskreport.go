package app

import (
	"context"
	"errors"
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
}

// report tells the server this desk's figures after a sync. It never fails
// the sync: the figures are informational, and a server older than the
// report (404) or one that refuses it must not hold back the events.
func (s *Service) report(ctx context.Context, ring string, st SyncStatus) {
	r, err := s.DeskReport(ctx, st)
	if err == nil {
		err = s.Remote.Report(ctx, ring, r)
	}
	var sr *ServerRefusal
	switch {
	case err == nil:
	case errors.As(err, &sr) && sr.Status == 404:
		// A server from before the report: nothing to tell it.
	default:
		s.Log.Warn("the desk's figures were not reported to the server", "error", err.Error())
	}
}

// DeskReport counts this desk's report: st.Waiting, and the print figures
// of today (as the close of the day counts them).
func (s *Service) DeskReport(ctx context.Context, st SyncStatus) (DeskReport, error) {
	now := s.Now()
	day := Day(now)
	date := FormatDate(day)
	f, err := s.Store.DayFigures(ctx, date, day.Unix(), day.AddDate(0, 0, 1).Unix())
	if err != nil {
		return DeskReport{}, err
	}
	return DeskReport{Date: date, EventsWaiting: st.Waiting, PrintJobs: f.PrintJobs, LabelsPrinted: f.Printed,
		Reprints: f.Reprints, At: now.Unix()}, nil
}
