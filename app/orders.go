package app

import (
	"context"
	"errors"
	"fmt"
)

// Orders in: a day's pickup orders (an order file, orderfile.go) become one
// batch per order, one label per parcel, each carrying the order number as
// its ref. An order is issued once at a desk: importing the same file
// again issues nothing twice, and names what was issued before.

// ErrOrderIssued is why an order is not issued again.
var ErrOrderIssued = errors.New("order issued already")

// IssuedOrder is an order issued at this desk: its batch and when.
type IssuedOrder struct {
	Number   string `json:"order"`
	Customer string `json:"customer"`
	Parcels  int    `json:"parcels"`
	Batch    int64  `json:"batch"`
	IssuedAt int64  `json:"issued_at"`
}

// OrderStore is what importing orders needs of the desk's store.
type OrderStore interface {
	IssuedOrders(ctx context.Context, numbers []string) (map[string]IssuedOrder, error)
	// HighestSerial is the highest daily serial the desk knows under
	// stationID for the label date and prefix: the next batch starts
	// after it.
	HighestSerial(ctx context.Context, labelDate, prefix, stationID string) (int, error)
}

// ErrOrderFileTooMany is why nothing of an order file whose labels would
// take the day's serial past its digits is issued: issuing order by order
// would stop part-way, with some orders issued and the rest not.
var ErrOrderFileTooMany = errors.New("the order file's labels do not fit the day's serials")

// OrderImport is how an order file's orders are issued: as IssueRequest
// (label date, expiry, who), DryRun to say what would be issued.
type OrderImport struct {
	Date       string
	Expires    string
	Operator   string
	Supervisor string
	DryRun     bool
}

// OrderImportResult is what an import issued (or, dry, would issue) and
// what it left because it was issued before.
type OrderImportResult struct {
	Issued  []IssuedOrder `json:"issued"`
	Already []IssuedOrder `json:"already_issued"`
	Labels  int           `json:"labels"` // labels issued (or to issue)
	DryRun  bool          `json:"dry_run,omitempty"`
}

// ErrOrderFileRefused is why nothing of an order file with bad rows is
// issued: the clerk fixes the file, then imports it whole.
var ErrOrderFileRefused = errors.New("the order file has bad rows")

// ImportOrders issues f's orders not issued before, one batch each, all
// in one transaction: the file's new orders are issued whole or not at
// all. A file with any bad row issues nothing (ErrOrderFileRefused; the
// rows are f.Refused). Should an order be issued meanwhile (another
// window, the command line), the orders go one by one and that one is
// named as issued before.
func (s *Service) ImportOrders(ctx context.Context, f OrderFile, req OrderImport) (OrderImportResult, error) {
	res := OrderImportResult{Issued: []IssuedOrder{}, Already: []IssuedOrder{}, DryRun: req.DryRun}
	if len(f.Refused) > 0 {
		return res, &Error{Kind: KindInvalid, Err: ErrOrderFileRefused, Message: RefusedRowsText(len(f.Refused), "en")}
	}
	os, ok := s.Store.(OrderStore)
	if !ok {
		return res, Errorf(KindInternal, "this desk's store cannot keep orders")
	}
	numbers := make([]string, len(f.Orders))
	for i, o := range f.Orders {
		numbers[i] = o.Number
	}
	before, err := os.IssuedOrders(ctx, numbers)
	if err != nil {
		return res, err
	}
	var todo []OrderRow
	labels := 0
	for _, o := range f.Orders {
		if prev, ok := before[o.Number]; ok {
			res.Already = append(res.Already, prev)
			continue
		}
		if err := s.checkPrintable("order number", o.Number); err != nil {
			return res, err
		}
		todo, labels = append(todo, o), labels+o.Parcels
	}
	if err := s.checkSerialRoom(ctx, os, req.Date, labels); err != nil {
		return res, err
	}
	if req.DryRun {
		for _, o := range todo {
			res.Issued = append(res.Issued, IssuedOrder{Number: o.Number, Customer: o.Customer, Parcels: o.Parcels})
			res.Labels += o.Parcels
		}
		return res, nil
	}
	if bi, ok := s.Store.(BatchesIssuer); ok && len(todo) > 1 {
		done, err := s.issueOrdersAtOnce(ctx, bi, todo, req)
		if !errors.Is(err, ErrOrderIssued) { // one issued meanwhile: one by one below
			if err == nil {
				res.Issued = done
				for _, o := range todo {
					res.Labels += o.Parcels
				}
			}
			return res, err
		}
	}
	return s.issueOrdersOneByOne(ctx, os, todo, req, res)
}

// BatchesIssuer issues several batches in one transaction, all or none
// (store.DB.IssueBatches): an order file's orders at once.
type BatchesIssuer interface {
	IssueBatches(ctx context.Context, specs []BatchSpec, makeCode func(serial int) (Code, error)) ([]Batch, error)
}

// issueOrdersAtOnce issues the orders in one transaction: a file of
// 10,000 orders in a second or two, where a commit each took minutes.
func (s *Service) issueOrdersAtOnce(ctx context.Context, bi BatchesIssuer, todo []OrderRow, req OrderImport) ([]IssuedOrder, error) {
	if err := s.CheckKeyFile(ctx); err != nil {
		return nil, err
	}
	specs := make([]BatchSpec, len(todo))
	var makeCode func(serial int) (Code, error)
	for i := range todo {
		spec, mc, err := s.issueSpec(ctx, IssueRequest{Count: todo[i].Parcels, Date: req.Date, Ref: todo[i].Number, Expires: req.Expires,
			Operator: req.Operator, Supervisor: req.Supervisor, Order: &todo[i], keysChecked: true, DropCodes: true})
		if err != nil {
			return nil, fmt.Errorf("order %s (line %d): %w", todo[i].Number, todo[i].Line, err)
		}
		specs[i] = spec
		if makeCode == nil {
			makeCode = mc // one label date for the file: one maker
		}
	}
	batches, err := bi.IssueBatches(ctx, specs, makeCode)
	if err != nil {
		return nil, err
	}
	out := make([]IssuedOrder, len(todo))
	for i, o := range todo {
		out[i] = IssuedOrder{Number: o.Number, Customer: o.Customer, Parcels: o.Parcels, Batch: batches[i].ID, IssuedAt: batches[i].CreatedAt}
	}
	return out, nil
}

// issueOrdersOneByOne issues each order in its own transaction; an order
// issued meanwhile (another window, the command line) is named as issued
// before. Should one fail (a full disk), the orders before it stay issued
// and the error names the order, so importing the file again issues the
// rest.
func (s *Service) issueOrdersOneByOne(ctx context.Context, os OrderStore, todo []OrderRow, req OrderImport, res OrderImportResult) (OrderImportResult, error) {
	if err := s.CheckKeyFile(ctx); err != nil {
		return res, err
	}
	for _, o := range todo {
		order := o
		b, _, err := s.Issue(ctx, IssueRequest{Count: o.Parcels, Date: req.Date, Ref: o.Number, Expires: req.Expires,
			Operator: req.Operator, Supervisor: req.Supervisor, Order: &order, keysChecked: true})
		if errors.Is(err, ErrOrderIssued) {
			later, rerr := os.IssuedOrders(ctx, []string{o.Number})
			if rerr != nil {
				return res, rerr
			}
			res.Already = append(res.Already, later[o.Number])
			continue
		}
		if err != nil {
			return res, fmt.Errorf("order %s (line %d): %w", o.Number, o.Line, err)
		}
		res.Issued = append(res.Issued, IssuedOrder{Number: o.Number, Customer: o.Customer, Parcels: o.Parcels, Batch: b.ID, IssuedAt: b.CreatedAt})
		res.Labels += o.Parcels
	}
	return res, nil
}

// checkSerialRoom refuses, before anything is issued, an import whose
// labels would take the label day's serial past the serial digits.
func (s *Service) checkSerialRoom(ctx context.Context, os OrderStore, date string, labels int) error {
	set, err := s.Store.LoadSettings(ctx)
	if err != nil || !set.DateSerial || labels == 0 {
		return err
	}
	day, err := s.parseDay(ctx, date)
	if err != nil {
		return err
	}
	high, err := os.HighestSerial(ctx, FormatDate(day), set.Prefix, set.StationID)
	if err != nil {
		return err
	}
	maxSerial := 1
	for i := 0; i < set.SerialDigits; i++ {
		maxSerial *= 10
	}
	if room := maxSerial - 1 - high; labels > room {
		return &Error{Kind: KindInvalid, Err: ErrOrderFileTooMany, Message: fmt.Sprintf(
			"the order file needs %s but the daily serial of %s has room for %d more (up to %d): import fewer orders, give another --date, or raise the serial digits in settings; nothing was issued",
			Plural(labels, "label", "labels"), FormatDate(day), max(room, 0), maxSerial-1)}
	}
	return nil
}

func isAre(n int) string { return map[bool]string{true: "is", false: "are"}[n == 1] }

func itThem(n int) string { return map[bool]string{true: "it", false: "them"}[n == 1] }
