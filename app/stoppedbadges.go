package app

import (
	"context"
	"errors"
)

// StoppedBadge is an operator whose badge printed at this desk no longer
// signs in since a sync: the deployment's staff list holds a newer badge
// of theirs (renewed elsewhere, or their record had a newer one when this
// desk joined the list), or removed them. A supervisor prints the new
// badge ('qrdesk print --badges', or the window's Staff screen);
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

// StoppedBadgeStore keeps the badges printed here that stopped signing in
// with a sync, across restarts, until a badge is printed for the operator
// here or a supervisor dismisses the note.
type StoppedBadgeStore interface {
	// NoteStoppedBadges keeps each badge at at, one per name (any case):
	// a later note of a name replaces its earlier one.
	NoteStoppedBadges(ctx context.Context, badges []StoppedBadge, at int64) error
	// StoppedBadges lists the notes by name.
	StoppedBadges(ctx context.Context) ([]StoppedBadge, error)
	// DropStoppedBadges drops the notes of names (any case): a badge was
	// printed for them here.
	DropStoppedBadges(ctx context.Context, names []string) error
	// DismissStoppedBadge drops name's note and audits who dismissed it;
	// ErrNotFound when there is none.
	DismissStoppedBadge(ctx context.Context, name string, actor Actor) error
}

// noteStoppedBadges compares the desk's operators with before (read
// before a sync) and keeps those whose badge stopped: a badge names the
// operator's row (by its staff id on the staff list, its own id before
// the desk joined it), their name and badge version, so it stops when
// the row is removed or either changes. Joining the list alone stops
// none: a badge of the desk's own list keeps signing in at this desk
// while its row is as it was (Operators.signInJoinedBadge).
func (s *Service) noteStoppedBadges(ctx context.Context, before badgeHolders) error {
	if !before.ok || len(before.ops) == 0 {
		return nil
	}
	now, err := s.Store.Operators(ctx, true)
	if err != nil {
		return err
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
		return nil
	}
	return s.Store.NoteStoppedBadges(ctx, stopped, s.Now().Unix())
}

// StoppedBadges returns the operators whose badges printed here stopped
// signing in with a sync, by name, until a badge is printed for them here
// (Operators.BadgesPrinted) or a supervisor dismisses the note
// (Operators.DismissStoppedBadge).
func (s *Service) StoppedBadges(ctx context.Context) ([]StoppedBadge, error) {
	return s.Store.StoppedBadges(ctx)
}

// BadgesPrinted ends the notes of stopped badges of the operators whose
// badges were just printed (or saved) here: they have a badge that signs
// in again.
func (st *Operators) BadgesPrinted(ctx context.Context, printed []OperatorBadge) error {
	names := make([]string, len(printed))
	for i, b := range printed {
		names[i] = b.Name
	}
	return st.Store.DropStoppedBadges(ctx, names)
}

// DismissStoppedBadge ends the note of name's stopped badge without a new
// badge (a removed operator gets none, or the badge is not wanted); by,
// a supervisor, is audited.
func (st *Operators) DismissStoppedBadge(ctx context.Context, name, by string) error {
	err := st.Store.DismissStoppedBadge(ctx, name, st.actor(ctx, by))
	if errors.Is(err, ErrNotFound) {
		return Errorf(KindNotFound, "no stopped badge of %s is noted at this desk", name)
	}
	return err
}
