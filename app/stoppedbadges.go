package app

import (
	"context"
	"slices"
	"strings"
)

// StoppedBadge is an operator whose badge printed at this desk no longer
// signs in since a sync: the deployment's staff list holds a newer badge
// of theirs (renewed elsewhere, or their record had a newer one when this
// desk joined the list), or removed them. A supervisor prints the new
// badge ('qrdesk print --badges', or Settings → Print operator badges…);
// a removed operator gets none.
type StoppedBadge struct {
	Name    string `json:"name"`
	Removed bool   `json:"removed,omitempty"`
}

// badgeHolders is what the desk's badges are signed for before a sync:
// its current operators and whether they are the staff list's.
type badgeHolders struct {
	shared bool
	ops    []Operator
	ok     bool
}

func (s *Service) badgeHolders(ctx context.Context) badgeHolders {
	l, err := s.Store.OperatorList(ctx)
	if err != nil {
		return badgeHolders{}
	}
	ops, err := s.Store.Operators(ctx, false)
	if err != nil {
		return badgeHolders{}
	}
	return badgeHolders{shared: l.Shared, ops: ops, ok: true}
}

// noteStoppedBadges compares the desk's operators with before (read
// before a sync) and keeps those whose badge stopped: a badge names the
// operator's row (by its staff id on the staff list, its own id before
// the desk joined it), their name and badge version, so it stops when
// the row is removed or either changes. Joining the list alone stops
// none: a badge of the desk's own list keeps signing in at this desk
// while its row is as it was (Operators.signInJoinedBadge).
func (s *Service) noteStoppedBadges(ctx context.Context, before badgeHolders) {
	if !before.ok || len(before.ops) == 0 {
		return
	}
	now, err := s.Store.Operators(ctx, true)
	if err != nil {
		return
	}
	byID := make(map[int64]Operator, len(now))
	for _, op := range now {
		byID[op.ID] = op
	}
	var stopped []StoppedBadge
	for _, was := range before.ops {
		op, ok := byID[was.ID]
		switch {
		case !ok:
		case op.RemovedAt != 0:
			stopped = append(stopped, StoppedBadge{Name: op.Name, Removed: true})
		case op.Name != was.Name || op.BadgeVersion != was.BadgeVersion,
			before.shared && was.StaffID != 0 && op.StaffID != was.StaffID:
			stopped = append(stopped, StoppedBadge{Name: op.Name})
		}
	}
	if len(stopped) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range stopped {
		s.stoppedBadges = slices.DeleteFunc(s.stoppedBadges, func(o StoppedBadge) bool { return strings.EqualFold(o.Name, b.Name) })
		s.stoppedBadges = append(s.stoppedBadges, b)
	}
}

// StoppedBadges returns the operators whose badges printed here stopped
// signing in with a sync of this process, by name; ForgetStoppedBadges
// empties the list once new badges are printed.
func (s *Service) StoppedBadges() []StoppedBadge {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := slices.Clone(s.stoppedBadges)
	slices.SortFunc(out, func(a, b StoppedBadge) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// ForgetStoppedBadges empties StoppedBadges (a badge sheet was printed).
func (s *Service) ForgetStoppedBadges() {
	s.mu.Lock()
	s.stoppedBadges = nil
	s.mu.Unlock()
}
