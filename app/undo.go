package app

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Undoing a redemption: a supervisor puts a label scanned by mistake back to
// unused, within the undo window, with a reason. Nothing is deleted: the
// redemption row stays (marked undone) and an undo row is added beside it,
// so the label's history shows both. With a server the undo travels as its
// own event, and the server applies it only while the redemption of record
// is this desk's.

// DefaultUndoWindow is the undo_window setting's default.
const DefaultUndoWindow = 5 * time.Minute

// Bounds of the undo_window setting.
const (
	MinUndoWindow = time.Minute
	MaxUndoWindow = 24 * time.Hour
)

// ParseUndoWindow reads the undo_window setting: a duration such as 5m,
// 90s or 1h.
func ParseUndoWindow(s string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.ToLower(strings.TrimSpace(s)))
	if err != nil || d < MinUndoWindow || d > MaxUndoWindow {
		return 0, fmt.Errorf("undo window %q is not allowed: use a duration from 1m to 24h, e.g. 5m or 1h", s)
	}
	return d, nil
}

// FormatUndoWindow writes an undo window the way ParseUndoWindow reads
// it: 5m, 1h, 1h30m, 90s.
func FormatUndoWindow(d time.Duration) string {
	switch {
	case d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d%time.Minute == 0 && d < time.Hour:
		return fmt.Sprintf("%dm", d/time.Minute)
	case d%time.Minute == 0:
		return fmt.Sprintf("%dh%dm", d/time.Hour, d%time.Hour/time.Minute)
	}
	return d.String()
}

// UndoWaitsUpgrade is Undo.Server for an undo kept at the desk because
// the server does not know undo yet.
const UndoWaitsUpgrade = "waiting_upgrade"

// UndoRequest is one undo: the label as scanned or typed, why, and who.
type UndoRequest struct {
	Code     string
	Reason   string
	Operator string
}

// Undo is an undone redemption.
type Undo struct {
	Code       string `json:"code"`
	EventID    string `json:"event_id"`
	Undoes     string `json:"undoes"` // the redemption's trace id
	RedeemedAt int64  `json:"redeemed_at"`
	RedeemedBy string `json:"redeemed_by"`
	At         int64  `json:"at"`
	Operator   string `json:"operator"`
	Reason     string `json:"reason"`
	// Server is what the central server said, when there is one: "undone",
	// "waiting" (not reached yet: it goes with the next sync),
	// UndoWaitsUpgrade (the server is older and does not know undo: it
	// goes once the server is upgraded) or "refused".
	Server       string `json:"server,omitempty"`
	ServerReason string `json:"server_reason,omitempty"`
	Status       Status `json:"status"` // the label's status afterwards
}

// UndoSince is the start of the undo window on each clock a redemption's
// time can be on: the desk's own (an offline redemption) and the server's
// (an online one, stored at the server's time).
type UndoSince struct {
	Desk   int64
	Server int64
}

// UndoStore is what undoing needs of the desk database.
type UndoStore interface {
	// UndoRedemption puts c back to unused with one conditional UPDATE: it
	// changes the label only while it is used by a standing redemption made
	// at actor.Station at or after since: since.Server for a redemption the
	// server decided (its time is the server's), since.Desk for one decided
	// here (its time is this desk's clock). In the same transaction the
	// redemption is marked undone, the undo row, the audit row and the
	// outbox event are written. When nothing changed, the error says why
	// (not found, not used, another desk's redemption, outside the window).
	UndoRedemption(ctx context.Context, c Code, since UndoSince, u Undo, actor Actor) (Undo, error)
	// UndoResult returns what became of an undo event (after a sync).
	UndoResult(ctx context.Context, eventID string) (Undo, error)
	// RefusedUndos lists this desk's undos the server refused, newest first.
	RefusedUndos(ctx context.Context) ([]Undo, error)
	// UndoWaiting reports whether an undo of c made here waits in the
	// outbox (the server does not know of it yet).
	UndoWaiting(ctx context.Context, c Code) (bool, error)
}

// undoWaiting reports whether the label has an undo the server has not
// heard of yet. Such a label is decided here: the server still has it used
// and would answer "already used", while here it is unused; deciding here
// puts the new redemption in the outbox behind the undo, so the server
// applies both in order.
func (s *Service) undoWaiting(ctx context.Context, c Code) bool {
	us := s.Store
	waiting, err := us.UndoWaiting(ctx, c)
	return err == nil && waiting
}

// RefusedUndos lists the undos the central server refused (the label is
// used again here), for 'qrdesk conflicts' and 'qrdesk undo --refused'.
func (s *Service) RefusedUndos(ctx context.Context) ([]Undo, error) {
	us := s.Store
	return us.RefusedUndos(ctx)
}

// UndoRedemption undoes the standing redemption of a label made at this
// desk within the undo window. With a server, the undo is sent at once
// (it also goes with the next sync when the server does not answer).
func (s *Service) UndoRedemption(ctx context.Context, req UndoRequest) (Undo, error) {
	us := s.Store
	c, _, refusal := s.decode(req.Code)
	if refusal != nil {
		return Undo{}, Errorf(KindInvalid, "%s", refusal.Message())
	}
	reason := strings.TrimSpace(req.Reason)
	if len([]rune(reason)) < 3 {
		return Undo{}, Errorf(KindInvalid, "give a reason of at least 3 characters for the undo, e.g. \"scanned the wrong parcel\"")
	}
	if err := CheckReason(reason); err != nil {
		return Undo{}, Errorf(KindInvalid, "%v", err)
	}
	if strings.TrimSpace(req.Operator) == "" {
		return Undo{}, Errorf(KindInvalid, "name the supervisor who undoes the redemption")
	}
	if err := CheckOperator(req.Operator); err != nil {
		return Undo{}, Errorf(KindInvalid, "%v", err)
	}
	set, err := s.Store.LoadSettings(ctx)
	if err != nil {
		return Undo{}, err
	}
	now := s.Now()
	u := Undo{Code: c.String(), EventID: NewTraceID(), At: now.Unix(), Operator: req.Operator, Reason: reason}
	// An online redemption is stored at the server's time: its window is
	// judged on the server's clock (by the last trusted measurement), or a
	// desk hours slow could undo it hours later and the parcel go out again
	// elsewhere, with no conflict anywhere (the server checks no window).
	s.followClock(ctx, now)
	window := int64(set.UndoWindow / time.Second)
	since := UndoSince{Desk: now.Unix() - window, Server: s.onServerClock(ctx, now.Unix()) - window}
	u, err = us.UndoRedemption(ctx, c, since, u, Actor{Station: set.StationName, Operator: req.Operator})
	if err != nil {
		return Undo{}, err
	}
	if s.Remote == nil {
		return u, nil
	}
	// Tell the server now, so a scan at another desk learns of it soon and
	// a re-scan here is not refused by the server's older state.
	u.Server = "waiting"
	ss := s.Store
	sctx, cancel := context.WithTimeout(ctx, 2*s.OnlineTimeout)
	err = s.uploadEvents(sctx, ss, s.Keys.RingID())
	cancel()
	if err != nil {
		s.Log.Warn("undo not sent yet: it goes with the next sync", "code", u.Code, "error", err.Error())
		return u, nil
	}
	if got, err := us.UndoResult(ctx, u.EventID); err == nil {
		u = got
	}
	return u, nil
}
