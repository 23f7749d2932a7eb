package app

import (
	"context"
	"errors"
	"fmt"
)

// PrintSelection says which codes to print: one of a batch, a label date, a
// list of codes, or a failed job to resume.
type PrintSelection struct {
	BatchID   int64
	Date      string
	Codes     []string
	ResumeJob int64
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
		return recs, nil, err
	case sel.Date != "":
		day, err := s.ParseDay(sel.Date)
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
		return PrintJob{}, Errorf(KindConflict, "%d of these %d codes were printed before: printing them again needs --reprint (or the reprint confirmation), and is logged", printed, len(recs))
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
