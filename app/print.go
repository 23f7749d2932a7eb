package app

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// PrintSelection says which codes to print: one of a batch (or part of
// it), a label date, a list of codes, or a failed job to resume.
type PrintSelection struct {
	BatchID   int64
	Part      *BatchPart // with BatchID: only this part of the batch
	Date      string
	Codes     []string
	ResumeJob int64
}

// BatchPart is part of a batch to print again, typically after a jam: one
// sheet as the batch lies on the template's sheets, or the labels from one
// serial to another.
type BatchPart struct {
	Sheet    int // from 1; 0 for a range of serials
	PerSheet int // labels a sheet of the template (1 for a roll)
	Skip     int // positions left blank on the batch's first sheet
	// From and To are serials as printed on the labels ("A0041") or their
	// numbers ("41"), both included; To "" is From alone.
	From, To string
}

// StartPosition is how many positions the part's labels skip on their
// sheet so that they land where they were: a first sheet's blank
// positions, none for a later sheet. A range of serials starts where the
// clerk says (-1).
func (p BatchPart) StartPosition() int {
	switch {
	case p.Sheet == 1:
		return p.Skip
	case p.Sheet > 1:
		return 0
	}
	return -1
}

// Describe names the part for the clerk and the log: "sheet 3" or
// "A0041–A0060".
func (p BatchPart) Describe() string {
	if p.Sheet > 0 {
		return fmt.Sprintf("sheet %d", p.Sheet)
	}
	from, to := strings.ToUpper(strings.TrimSpace(p.From)), strings.ToUpper(strings.TrimSpace(p.To))
	if to == "" || to == from {
		return from
	}
	return from + "–" + to
}

// Sheets is how many sheets count labels take after skip blank positions.
func Sheets(perSheet, skip, count int) int {
	if perSheet < 1 {
		return count
	}
	return (skip + count + perSheet - 1) / perSheet
}

// pick returns the records of batch (in print order) the part names.
func (p BatchPart) pick(batch int64, recs []CodeRecord) ([]CodeRecord, error) {
	if p.Sheet > 0 {
		per := max(p.PerSheet, 1)
		sheets := Sheets(per, p.Skip, len(recs))
		if p.Sheet > sheets {
			return nil, Errorf(KindInvalid, "batch %d takes %s: choose a sheet from 1 to %d", batch, Plural(sheets, "sheet", "sheets"), sheets)
		}
		first := max((p.Sheet-1)*per-p.Skip, 0)
		last := min(p.Sheet*per-p.Skip, len(recs))
		return recs[first:last], nil
	}
	if p.Sheet < 0 {
		return nil, Errorf(KindInvalid, "sheet %d is not a sheet: sheets count from 1", p.Sheet)
	}
	if strings.TrimSpace(p.From) == "" {
		return nil, Errorf(KindInvalid, "say which labels to print again: a sheet, or the serials from and to")
	}
	to := p.To
	if strings.TrimSpace(to) == "" {
		to = p.From
	}
	fromSt, from, err := readSerial(p.From)
	if err != nil {
		return nil, err
	}
	toSt, last, err := readSerial(to)
	if err != nil {
		return nil, err
	}
	if from > last {
		return nil, Errorf(KindInvalid, "serial %s comes after %s: give the first serial first", strings.TrimSpace(p.From), strings.TrimSpace(to))
	}
	var out []CodeRecord
	lo, hi := "", ""
	for _, r := range recs {
		c, err := Parse(r.Code)
		if err != nil || !c.HasSerial() {
			return nil, Errorf(KindInvalid, "the labels of batch %d have no serials: print a sheet again instead", batch)
		}
		printed := c.Station + c.SerialText()
		if lo == "" {
			lo = printed
		}
		hi = printed
		if (fromSt != "" && fromSt != c.Station) || (toSt != "" && toSt != c.Station) {
			continue
		}
		if c.Serial >= from && c.Serial <= last {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		return nil, Errorf(KindNotFound, "batch %d has no labels with serials from %s to %s (its serials run from %s to %s)",
			batch, strings.TrimSpace(p.From), strings.TrimSpace(to), lo, hi)
	}
	return out, nil
}

// readSerial reads a serial as printed ("A0041": station A, number 41) or
// a bare number ("41", any station).
func readSerial(text string) (station string, serial int, err error) {
	t := strings.ToUpper(strings.TrimSpace(text))
	if st, n, ok := PrintedSerial(t); ok {
		return st, n, nil
	}
	if n, err := strconv.Atoi(t); err == nil && n > 0 {
		return "", n, nil
	}
	return "", 0, Errorf(KindInvalid, "%q is not a serial: type it as printed on the label (A0041) or its number (41)", strings.TrimSpace(text))
}

// Plural is "1 sheet" or "3 sheets": every count the command line and its
// errors print ("1 codes" read as a mistake).
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// PrintJob is one recorded print.
type PrintJob struct {
	ID         int64  `json:"job"`
	CreatedAt  int64  `json:"created_at"`
	FinishedAt int64  `json:"finished_at,omitempty"`
	Station    string `json:"station"`
	Operator   string `json:"operator"`
	Template   string `json:"template"`
	Format     string `json:"format"`
	Printer    string `json:"printer,omitempty"`
	Output     string `json:"output,omitempty"`
	Codes      int    `json:"codes"`
	Reprint    bool   `json:"reprint"`
	Status     string `json:"status"`
	Error      string `json:"error,omitempty"`
}

// PrintStore is the storage printing needs.
type PrintStore interface {
	// StartPrintJob records a pending job with its codes in print order.
	StartPrintJob(ctx context.Context, job PrintJob, codeIDs []int64) (int64, error)
	// FinishPrintJob marks the job done (and counts one print for each of
	// its codes) or failed with the reason.
	FinishPrintJob(ctx context.Context, id int64, at int64, failure error) error
	// PrintJobCodes returns a job and its codes in print order.
	PrintJobCodes(ctx context.Context, id int64) (PrintJob, []CodeRecord, error)
}

// SelectForPrint resolves a selection into code records in print order.
func (s *Service) SelectForPrint(ctx context.Context, sel PrintSelection) ([]CodeRecord, *PrintJob, error) {
	ps := s.Store
	switch {
	case sel.ResumeJob != 0:
		job, recs, err := ps.PrintJobCodes(ctx, sel.ResumeJob)
		if errors.Is(err, ErrNotFound) {
			return nil, nil, Errorf(KindNotFound, "there is no print job %d", sel.ResumeJob)
		}
		if err != nil {
			return nil, nil, err
		}
		if job.Status == "done" {
			return nil, nil, Errorf(KindConflict, "print job %d already finished; to print its codes again use --batch or --codes with --reprint", job.ID)
		}
		return recs, &job, nil
	case sel.BatchID != 0:
		recs, err := s.BatchCodes(ctx, sel.BatchID)
		if err == nil && sel.Part != nil {
			recs, err = sel.Part.pick(sel.BatchID, recs)
		}
		if err != nil {
			return nil, nil, err
		}
		return recs, nil, nil
	case sel.Date != "":
		day, err := s.parseDay(ctx, sel.Date)
		if err != nil {
			return nil, nil, err
		}
		recs, err := s.Store.Search(ctx, SearchQuery{LabelDate: FormatDate(day), Limit: MaxBatch * 10, Oldest: true})
		if err == nil && len(recs) == 0 {
			err = Errorf(KindNotFound, "no codes have the label date %s", sel.Date)
		}
		return recs, nil, err
	case len(sel.Codes) > 0:
		recs := make([]CodeRecord, 0, len(sel.Codes))
		for i, raw := range sel.Codes {
			c, _, refusal := s.decode(raw)
			if refusal != nil {
				return nil, nil, Errorf(KindInvalid, "line %d (%q): %s", i+1, raw, refusal.Message())
			}
			rec, err := s.Store.Lookup(ctx, c)
			if errors.Is(err, ErrNotFound) {
				return nil, nil, Errorf(KindNotFound, "line %d: code %s is not in this station's database", i+1, c)
			}
			if err != nil {
				return nil, nil, err
			}
			recs = append(recs, rec)
		}
		return recs, nil, nil
	}
	if sel.Part != nil {
		return nil, nil, Errorf(KindInvalid, "a sheet or a range of serials is part of a batch: say which batch")
	}
	return nil, nil, Errorf(KindInvalid, "say what to print: --batch ID, --date YYYY-MM-DD, --codes FILE or --resume JOB")
}

// Print prints recs: prepare lays the labels out (a failure there is bad
// input and records nothing) and returns deliver, which writes or sends
// them. The job is recorded before delivery and marked done or failed
// after, so a failed job can be resumed. Codes printed before need
// job.Reprint, and the job is then logged as a reprint. A resumed job
// (resumed != nil) keeps its id.
func (s *Service) Print(ctx context.Context, recs []CodeRecord, job PrintJob, resumed *PrintJob,
	prepare func([]CodeRecord) (deliver func() error, err error)) (PrintJob, error) {
	ps := s.Store
	if len(recs) == 0 {
		return PrintJob{}, Errorf(KindInvalid, "there are no codes to print")
	}
	printed := 0
	ids := make([]int64, len(recs))
	for i, r := range recs {
		ids[i] = r.ID
		if r.PrintCount > 0 {
			printed++
		}
	}
	if resumed == nil && printed > 0 && !job.Reprint {
		return PrintJob{}, Errorf(KindConflict, "%d of these %s printed before: printing them again needs --reprint (or the reprint confirmation), and is logged", printed, Plural(len(recs), "code was", "codes were"))
	}
	deliver, err := prepare(recs)
	if err != nil {
		return PrintJob{}, err
	}
	if resumed != nil {
		job.ID, job.Reprint, job.CreatedAt, job.Codes = resumed.ID, resumed.Reprint, resumed.CreatedAt, resumed.Codes
	} else {
		job.Reprint = printed > 0
		job.CreatedAt, job.Codes = s.Now().Unix(), len(recs)
		set, err := s.Store.LoadSettings(ctx)
		if err != nil {
			return PrintJob{}, err
		}
		job.Station = set.StationName
		if job.ID, err = ps.StartPrintJob(ctx, job, ids); err != nil {
			return PrintJob{}, err
		}
	}
	sendErr := deliver()
	defer s.printedChanged()
	if err := ps.FinishPrintJob(ctx, job.ID, s.Now().Unix(), sendErr); err != nil {
		return job, err
	}
	if sendErr != nil {
		job.Status, job.Error = "failed", sendErr.Error()
		return job, &Error{Kind: KindUnavailable, Message: fmt.Sprintf("print job %d failed: %s; fix it and run 'qrdesk print --resume %d'", job.ID, ErrorMessage(sendErr), job.ID), Err: sendErr}
	}
	job.Status = "done"
	return job, nil
}
