package app

import (
	"context"
	"strings"
	"time"
)

// Replacing a label: a torn or unreadable label is replaced without two
// valid copies in the world. In one transaction the old code is disabled
// ("replaced by NEW") and a new code is issued with the same type, ref and
// expiry, in a batch of its own so it can be printed at once; the history
// of each names the other.

// ReplaceRequest asks for a replacement of one label.
type ReplaceRequest struct {
	Code     string
	Reason   string
	Operator string
}

// A replacement carries the day of the label it replaces (printed in it,
// or the desk's record of it; today when neither tells): a label issued
// for tomorrow is replaced by one for tomorrow, which today's close leaves
// alone.

// Replacement is an old label and the new one that replaces it.
type Replacement struct {
	Old    string     `json:"old"`
	New    CodeRecord `json:"new"`
	Batch  int64      `json:"batch"` // the new code's batch, for printing it
	Reason string     `json:"reason"`
}

// ReplaceStore is what replacing needs of the desk database.
type ReplaceStore interface {
	// ReplaceCode disables old with the reason "replaced by NEW" (only while
	// it is unused, and not expired at spec.CreatedAt: a disabled label is
	// enabled first, by a supervisor) and
	// issues one new code with old's type, ref and expiry under spec (label
	// date, prefix, serial scheme, actor), in one transaction with an audit
	// row on each naming the other and the outbox event of the replacement
	// (KindReplace). Both labels join old's entitlement; a label of an
	// entitlement that has another valid or used label is not replaced.
	ReplaceCode(ctx context.Context, old Code, reason string, spec BatchSpec, makeCode func(serial int) (Code, error)) (Replacement, error)
}

// Replace disables a label and issues its replacement.
func (s *Service) Replace(ctx context.Context, req ReplaceRequest) (Replacement, error) {
	rs := s.Store
	old, _, refusal := s.decode(req.Code)
	if refusal != nil {
		return Replacement{}, Errorf(KindInvalid, "%s", refusal.Message())
	}
	reason := strings.TrimSpace(req.Reason)
	if len([]rune(reason)) < 3 {
		return Replacement{}, Errorf(KindInvalid, "give a reason of at least 3 characters for the replacement, e.g. \"label torn\"")
	}
	if err := CheckReason(reason); err != nil {
		return Replacement{}, Errorf(KindInvalid, "%v", err)
	}
	if err := CheckOperator(req.Operator); err != nil {
		return Replacement{}, Errorf(KindInvalid, "%v", err)
	}
	set, err := s.Store.LoadSettings(ctx)
	if err != nil {
		return Replacement{}, err
	}
	now := s.ClockNow(ctx) // the replacement's issue time, as Issue's
	day := s.replacedDay(ctx, old, now)
	spec := BatchSpec{Count: 1, LabelDate: day.Format("2006-01-02"), Prefix: set.Prefix, Serial: set.DateSerial,
		CreatedAt: now.Unix(), Actor: Actor{Station: set.StationName, Operator: req.Operator}}
	if set.DateSerial {
		spec.StationID = set.StationID
	}
	if err := s.CheckKeyFile(ctx); err != nil {
		return Replacement{}, err
	}
	makeCode := s.codeMaker(set, day, "raise the serial digits in settings to replace more labels today")
	return rs.ReplaceCode(ctx, old, reason, spec, makeCode)
}

// replacedDay is the label day of old (local midnight): the date printed
// in it, else the one this desk holds for it, else today's.
func (s *Service) replacedDay(ctx context.Context, old Code, now time.Time) time.Time {
	date := old.LabelDate()
	if date == "" {
		if rec, err := s.Store.Lookup(ctx, old); err == nil {
			date = rec.LabelDate
		}
	}
	if d, err := time.ParseInLocation(DateLayout, date, now.Location()); err == nil && date != "" {
		return d
	}
	return Day(now)
}
