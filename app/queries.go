package app

import (
	"context"
	"errors"
	"io"

	"qrdesk/protocol"
)

// The reads the front ends need. The CLI and the window reach the store
// only through the Service, so every rule (dates in the service's zone,
// clear errors for what is not there) is applied in one place.

// Settings returns the station's stored settings.
func (s *Service) Settings(ctx context.Context) (Settings, error) {
	return s.Store.LoadSettings(ctx)
}

// Batch returns one batch.
func (s *Service) Batch(ctx context.Context, id int64) (Batch, error) {
	b, err := s.Store.Batch(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return Batch{}, Errorf(KindNotFound, "there is no batch %d; 'qrdesk search' or the Issue screen lists them", id)
	}
	return b, err
}

// BatchesOn lists the batches issued on a local day ("" for today), newest
// first.
func (s *Service) BatchesOn(ctx context.Context, date string) ([]Batch, error) {
	day, err := s.parseDay(ctx, date)
	if err != nil {
		return nil, err
	}
	return s.Store.Batches(ctx, day.Unix(), day.AddDate(0, 0, 1).Unix())
}

// BatchCodes returns the codes of a batch in serial order.
func (s *Service) BatchCodes(ctx context.Context, id int64) ([]CodeRecord, error) {
	if _, err := s.Batch(ctx, id); err != nil {
		return nil, err
	}
	return s.Store.BatchCodes(ctx, id)
}

// EachBatchCode calls each with the printed form of every code of a batch,
// in serial order, without holding the batch in memory (a batch issued
// with IssueRequest.DropCodes).
func (s *Service) EachBatchCode(ctx context.Context, id int64, each func(code string) error) error {
	if _, err := s.Batch(ctx, id); err != nil {
		return err
	}
	return s.Store.EachBatchCode(ctx, id, each)
}

// CodeHistory returns the scans and audit entries of one stored code,
// oldest first.
func (s *Service) CodeHistory(ctx context.Context, rec CodeRecord) ([]Event, error) {
	return s.Store.CodeHistory(ctx, rec.ID)
}

// ExportCodes writes the codes q selects, with their status, as CSV.
func (s *Service) ExportCodes(ctx context.Context, q SearchQuery, w io.Writer) (int, error) {
	return s.Store.ExportCodes(ctx, q, w)
}

// Backup writes a consistent copy of the database to path (safe while
// scanning).
func (s *Service) Backup(ctx context.Context, path string) error {
	return s.Store.Backup(ctx, path)
}

// SyncState says how this desk stands with the central server.
func (s *Service) SyncState(ctx context.Context) (SyncStatus, error) {
	return s.Store.SyncState(ctx)
}

// Conflicts lists the codes the central server found redeemed at two
// desks while offline.
func (s *Service) Conflicts(ctx context.Context) ([]protocol.Conflict, error) {
	return s.Store.Conflicts(ctx)
}
