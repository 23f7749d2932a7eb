package app

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// OperatorStore keeps the desk's operators. Operators are never deleted;
// every change and every sign-in is audited.
type OperatorStore interface {
	// LoadSettings gives the station name for the audit rows.
	LoadSettings(ctx context.Context) (Settings, error)
	// AddOperator stores a new operator and returns it with its id; a
	// current operator of the same name (any case) is a KindConflict error.
	AddOperator(ctx context.Context, op Operator, actor Actor) (Operator, error)
	// Operators lists the current operators by name, removed ones too when
	// asked.
	Operators(ctx context.Context, withRemoved bool) ([]Operator, error)
	// OperatorByName returns the current operator of that name (any case),
	// or ErrNotFound.
	OperatorByName(ctx context.Context, name string) (Operator, error)
	// OperatorByID returns an operator, removed or not, or ErrNotFound.
	OperatorByID(ctx context.Context, id int64) (Operator, error)
	// OperatorByStaffID returns the operator of the deployment's staff
	// list with that id (Operator.StaffID), removed or not, or ErrNotFound.
	OperatorByStaffID(ctx context.Context, id int64) (Operator, error)
	// OperatorList says which list the desk's operators are. On the
	// deployment's staff list, every change above is also an outbox event
	// of kind protocol.KindStaff, in the same transaction.
	OperatorList(ctx context.Context) (OperatorList, error)
	// RemoveOperator stamps the current operator name as removed at at.
	RemoveOperator(ctx context.Context, name string, at int64, actor Actor) (Operator, error)
	// RenewBadge raises the operator's badge version: the old badge stops
	// working.
	RenewBadge(ctx context.Context, name string, actor Actor) (Operator, error)
	// SetPINHash replaces the current operator's PIN hash.
	SetPINHash(ctx context.Context, name, hash string, actor Actor) (Operator, error)
	// AuditSignIn records a sign-in by method (SignInBadge or SignInPIN),
	// or a refused one with the reason, of subject.
	AuditSignIn(ctx context.Context, subject string, method SignInMethod, ok bool, reason string, actor Actor) error
	// PINFailures counts the wrong PINs audited for name (any case) since
	// name's last sign-in by PIN, and the desk's wrong PINs for any name
	// since since (Unix seconds), with when the latest of name's and the
	// earliest of the desk's were.
	PINFailures(ctx context.Context, name string, since int64) (PINFailureCount, error)
	// LiftPINLock audits a supervisor's lift of name's PIN lockout: the
	// wrong PINs before it count no more, for name nor for the desk.
	LiftPINLock(ctx context.Context, name string, actor Actor) error
	StoppedBadgeStore // stoppedbadges.go
}

// OperatorList is which list a desk's operators are.
type OperatorList struct {
	// Shared: the deployment's staff list, kept by the desk's server (it
	// announced protocol.KindStaff at the desk's enrolment); the desk's
	// copy changes with the feed. Otherwise the desk keeps its own list.
	Shared bool
	// DeskID is the desk's identity, made at random once: the badges of
	// its own list name it.
	DeskID string
}

// PINFailureCount is what the wrong-PIN lockout reads from the sign-in log.
type PINFailureCount struct {
	Name     int   // wrong PINs for the name since its last sign-in by PIN
	NameLast int64 // when the latest of them was (Unix seconds)
	Desk     int   // wrong PINs for any name at the desk in the window
	DeskFrom int64 // when the earliest of those was
}

// SignInMethod is how an operator signed in (or tried to).
type SignInMethod string

const (
	SignInBadge SignInMethod = "badge"
	SignInPIN   SignInMethod = "PIN"
)

// Operators is the service for the desk's operators: adding and removing them, their badges,
// and signing in by badge or by name and PIN.
type Operators struct {
	Store OperatorStore
	Keys  Keys
	Now   func() time.Time
	// Unprintable, when set, finds a character of a name the badge (label)
	// fonts cannot print: such a name is refused when it is added
	// (printing.Unprintable; see Service.Unprintable).
	Unprintable func(s string) (r rune, bad bool)
}

// NewOperators wires the operator service; now is the service's clock.
func NewOperators(st OperatorStore, keys Keys, now func() time.Time) *Operators {
	if now == nil {
		now = time.Now
	}
	return &Operators{Store: st, Keys: keys, Now: now}
}

// Operators is the desk's operators on the service's store, key ring and clock.
func (s *Service) Operators() *Operators {
	o := NewOperators(s.Store, s.Keys, s.Now)
	o.Unprintable = s.Unprintable
	return o
}

// Wrong PINs allowed for one name before its PIN is checked no more for a
// while, and how long (doubling with every further wrong PIN, at most
// pinMaxWait). The count is per name and only that name's own sign-in by
// PIN ends it: a picker who signs in as themselves between guesses at a
// supervisor's PIN no longer starts the supervisor's count again. The desk
// is limited too, so that guessing across names gains nothing: after
// DeskPINTries wrong PINs of any names within deskPINWindow, no PIN is
// checked until the earliest of them is older than the window; successes
// do not end that count. Both are read from the audit rows, so restarting
// the window does not reset them. Badges work throughout.
const (
	PINTries      = 5
	pinWait       = time.Minute
	pinMaxWait    = 15 * time.Minute
	DeskPINTries  = 3 * PINTries
	deskPINWindow = 15 * time.Minute
)

// ErrSignInRefused is wrapped by every refused sign-in.
var ErrSignInRefused = errors.New("sign-in refused")

func (st *Operators) actor(ctx context.Context, operator string) Actor {
	name := ""
	if set, err := st.Store.LoadSettings(ctx); err == nil {
		name = set.StationName
	}
	return Actor{Station: name, Operator: operator}
}

// Add registers an operator with a PIN; by is who adds them (audited).
// The name is stored composed (ComposedName); a name with an invisible
// character, or that reads as a current operator's (OperatorNameKey), is
// refused.
func (st *Operators) Add(ctx context.Context, name, pin string, supervisor bool, by string) (Operator, error) {
	if err := CheckNewOperatorName(name); err != nil {
		return Operator{}, &Error{Kind: KindInvalid, Message: err.Error(), Err: err}
	}
	name = ComposedName(name)
	if st.Unprintable != nil { // the name prints on the badge
		if r, bad := st.Unprintable(name); bad {
			e := &UnprintableError{What: "name", Char: r}
			return Operator{}, &Error{Kind: KindInvalid, Message: e.Error(), Err: e}
		}
	}
	current, err := st.Store.Operators(ctx, false)
	if err != nil {
		return Operator{}, err
	}
	names := make([]string, len(current))
	for i, op := range current {
		names[i] = op.Name
	}
	if like := ReadsLike(name, names); like != "" {
		e := &LooksLikeError{Name: name, Existing: like}
		return Operator{}, &Error{Kind: KindConflict, Message: e.Error(), Err: e}
	}
	if err := CheckPIN(pin); err != nil {
		return Operator{}, Errorf(KindInvalid, "%v", err)
	}
	hash, err := HashPIN(pin)
	if err != nil {
		return Operator{}, ErrorfWrap(KindInternal, err, "cannot protect the PIN")
	}
	op := Operator{Name: name, Supervisor: supervisor, BadgeVersion: 1, CreatedAt: st.Now().Unix(), PINHash: hash}
	return st.Store.AddOperator(ctx, op, st.actor(ctx, by))
}

// List returns the current operators (and removed ones when asked).
func (st *Operators) List(ctx context.Context, withRemoved bool) ([]Operator, error) {
	return st.Store.Operators(ctx, withRemoved)
}

// Find returns the current operator of that name (any case), or an error
// that says there is none.
func (st *Operators) Find(ctx context.Context, name string) (Operator, error) {
	op, err := st.Store.OperatorByName(ctx, name)
	if errors.Is(err, ErrNotFound) {
		return Operator{}, Errorf(KindNotFound, "there is no operator called %s: 'qrdesk operators list' shows them", name)
	}
	return op, err
}

// Recorded is the name a command records as who did it: at a desk with
// operators (its own list or the deployment's staff list, as last synced;
// removed ones count, so a desk whose last operator was removed does not
// go back to any name) only a current operator's, in the list's spelling,
// else a KindInvalid error that says what to do; at a desk that never had
// operators any name, as given. The command line checks its --operator
// with it.
func (st *Operators) Recorded(ctx context.Context, name string) (string, error) {
	ever, err := st.Store.Operators(ctx, true)
	if err != nil || len(ever) == 0 {
		return name, err
	}
	op, err := st.Store.OperatorByName(ctx, name)
	if errors.Is(err, ErrNotFound) {
		return "", Errorf(KindInvalid, "%q is not on this desk's staff list: give --operator the name of a current operator ('qrdesk operators list' shows them), or add them first with 'qrdesk operators add'", name)
	}
	if err != nil {
		return "", err
	}
	return op.Name, nil
}

// Why an operator who signed in earlier no longer counts (Recheck); each
// is wrapped in an *Error whose message says what to do.
var (
	ErrOperatorRemoved = errors.New("operator removed")
	ErrBadgeReplaced   = errors.New("badge replaced")
	ErrPINChanged      = errors.New("PIN changed")
	ErrNotSupervisor   = errors.New("not a supervisor")
)

// NoLongerCurrent reports whether err is Recheck's refusal of an operator
// who no longer counts (not a database error).
func NoLongerCurrent(err error) bool {
	return errors.Is(err, ErrOperatorRemoved) || errors.Is(err, ErrBadgeReplaced) || errors.Is(err, ErrPINChanged) || errors.Is(err, ErrNotSupervisor)
}

// Recheck re-reads an operator who signed in (or approved) earlier and
// returns them as they are now, when they still count: not removed since,
// their badge not replaced since (a lost badge may be in other hands, and
// the one who signed in with it is asked again), their PIN not changed
// since (a PIN someone else learnt: the one who signed in with it is
// asked again too), and a supervisor when supervisor is set. Otherwise a
// KindConflict error wrapping ErrOperatorRemoved, ErrBadgeReplaced,
// ErrPINChanged or ErrNotSupervisor says why. Every
// supervisor approval at the window goes through it, so a supervisor
// removed or with a renewed badge approves nothing more.
func (st *Operators) Recheck(ctx context.Context, op Operator, supervisor bool) (Operator, error) {
	now, err := st.Store.OperatorByID(ctx, op.ID)
	switch {
	case errors.Is(err, ErrNotFound):
		return Operator{}, &Error{Kind: KindConflict, Err: ErrOperatorRemoved,
			Message: fmt.Sprintf("%s is not an operator of this desk: sign in again", op.Name)}
	case err != nil:
		return Operator{}, err
	case now.RemovedAt != 0:
		return Operator{}, &Error{Kind: KindConflict, Err: ErrOperatorRemoved,
			Message: fmt.Sprintf("%s was removed from this desk on %s: they are signed out and approve nothing more", now.Name, FormatTime(now.RemovedAt))}
	case now.BadgeVersion != op.BadgeVersion:
		return Operator{}, &Error{Kind: KindConflict, Err: ErrBadgeReplaced,
			Message: fmt.Sprintf("the badge of %s was replaced since they signed in: they are signed out; sign in again with the new badge or the PIN", now.Name)}
	case now.PINHash != op.PINHash:
		return Operator{}, &Error{Kind: KindConflict, Err: ErrPINChanged,
			Message: fmt.Sprintf("the PIN of %s was changed since they signed in: they are signed out; sign in again with the badge or the new PIN", now.Name)}
	case supervisor && !now.Supervisor:
		return Operator{}, &Error{Kind: KindConflict, Err: ErrNotSupervisor,
			Message: fmt.Sprintf("%s is not a supervisor: a supervisor must approve this", now.Name)}
	}
	return now, nil
}

// Any reports whether the desk has operators: then the window asks who is
// working before a scan.
func (st *Operators) Any(ctx context.Context) (bool, error) {
	ops, err := st.Store.Operators(ctx, false)
	return len(ops) > 0, err
}

// Remove takes an operator off the desk; their badge and PIN stop working,
// the history that names them stays.
func (st *Operators) Remove(ctx context.Context, name, by string) (Operator, error) {
	return st.Store.RemoveOperator(ctx, name, st.Now().Unix(), st.actor(ctx, by))
}

// RenewBadge cancels an operator's badge (lost or stolen): print the new one.
func (st *Operators) RenewBadge(ctx context.Context, name, by string) (Operator, error) {
	return st.Store.RenewBadge(ctx, name, st.actor(ctx, by))
}

// SetPIN gives an operator a new PIN (a forgotten one); by is audited.
func (st *Operators) SetPIN(ctx context.Context, name, pin, by string) (Operator, error) {
	if err := CheckPIN(pin); err != nil {
		return Operator{}, Errorf(KindInvalid, "%v", err)
	}
	hash, err := HashPIN(pin)
	if err != nil {
		return Operator{}, ErrorfWrap(KindInternal, err, "cannot protect the PIN")
	}
	return st.Store.SetPINHash(ctx, name, hash, st.actor(ctx, by))
}

// scope is the list the desk's badges are for, with where it is in words
// ("this desk", "the staff list") for the clerk's messages.
func (st *Operators) scope(ctx context.Context) (BadgeScope, string, error) {
	l, err := st.Store.OperatorList(ctx)
	if err != nil {
		return BadgeScope{}, "", err
	}
	if l.Shared {
		return BadgeScope{Shared: true, ID: st.Keys.RingID()}, "the staff list", nil
	}
	return BadgeScope{ID: l.DeskID}, "this desk", nil
}

// Shared reports whether the desk's operators are the deployment's staff
// list (OperatorList.Shared).
func (st *Operators) Shared(ctx context.Context) (bool, error) {
	l, err := st.Store.OperatorList(ctx)
	return l.Shared, err
}

// Badge returns the text of op's badge QR for the desk's list: on the
// deployment's staff list, once the server has given op their id there.
// It reads which list with a context of its own (a quick read).
func (st *Operators) Badge(op Operator) (string, error) {
	scope, _, err := st.scope(context.Background())
	if err != nil {
		return "", err
	}
	if scope.Shared && op.StaffID == 0 {
		return "", Errorf(KindConflict, "%s is not in the deployment's staff list yet: sync this desk ('qrdesk sync'), then print the badge", op.Name)
	}
	b, err := st.Keys.BadgeFor(op, scope)
	if err != nil {
		return "", Errorf(KindInvalid, "%v", err)
	}
	return b.String(), nil
}

// SignInBadge checks a scanned badge and returns its operator. The refusal
// says why (damaged, forged, of another list, replaced, removed) and is
// audited. A badge is for one list (BadgeScope): the deployment's staff
// list on a synced desk, the desk's own otherwise; a badge of any other
// list is refused.
func (st *Operators) SignInBadge(ctx context.Context, raw string) (Operator, error) {
	b, err := ParseBadge(raw)
	if errors.Is(err, ErrOldBadge) {
		return Operator{}, st.refuseAs(ctx, ErrOldBadge, "badge", "%v", err)
	}
	if err != nil {
		return Operator{}, st.refuse(ctx, "badge", SignInBadge, "%v", err)
	}
	scope, where, err := st.scope(ctx)
	if err != nil {
		return Operator{}, err
	}
	switch {
	case b.Scope == BadgeStaff && !scope.Shared:
		return Operator{}, st.refuse(ctx, "badge", SignInBadge, "this badge is for a deployment's staff list, and this desk keeps its own list of operators: do not let it sign in")
	case b.Scope == BadgeDesk && scope.Shared:
		return st.signInJoinedBadge(ctx, b)
	}
	notOurs := "this badge was not made at this desk or was altered: do not let it sign in"
	find := st.Store.OperatorByID
	if scope.Shared {
		notOurs = "this badge was not made for this deployment's staff list or was altered: do not let it sign in"
		find = st.Store.OperatorByStaffID
	}
	op, err := find(ctx, b.OperatorID)
	if errors.Is(err, ErrNotFound) {
		return Operator{}, st.refuse(ctx, "badge", SignInBadge, "%s", notOurs)
	}
	if err != nil {
		return Operator{}, err
	}
	if err := st.Keys.VerifyBadge(b, op.Name, scope); err != nil {
		return Operator{}, st.refuse(ctx, "badge", SignInBadge, "%s", notOurs)
	}
	switch {
	case op.RemovedAt != 0:
		return Operator{}, st.refuse(ctx, op.Name, SignInBadge, "%s was removed from %s on %s: their badge no longer works", op.Name, where, FormatTime(op.RemovedAt))
	case b.Version != op.BadgeVersion:
		return Operator{}, st.refuse(ctx, op.Name, SignInBadge, "this badge of %s was replaced by a newer one: use the new badge", op.Name)
	}
	return op, st.Store.AuditSignIn(ctx, op.Name, SignInBadge, true, "", st.actor(ctx, op.Name))
}

// ErrBadgeBeforeJoin is wrapped by the refusal of a badge of this desk's
// own list, printed before the desk joined the deployment's staff list,
// that no longer fits its operator's record: a supervisor prints a new one.
var ErrBadgeBeforeJoin = errors.New("badge printed before the desk joined the staff list")

// signInJoinedBadge checks, at a desk on the deployment's staff list, a
// badge of the desk's own list printed before it joined. The desk's row
// of that operator stays theirs when it joins (its staff id is added, or
// the deployment's record of the same name is joined to it), so the badge
// still names them: it signs in while the row keeps the name and badge
// version it was signed for and is not removed. Another desk's own badge
// fails the signature (its list id is that desk's), a badge renewed
// anywhere or whose version the deployment's record raised is refused,
// with what to do in the picker's words.
func (st *Operators) signInJoinedBadge(ctx context.Context, b Badge) (Operator, error) {
	l, err := st.Store.OperatorList(ctx)
	if err != nil {
		return Operator{}, err
	}
	stale := func(subject, format string, args ...any) error {
		return st.refuseAs(ctx, ErrBadgeBeforeJoin, subject, format, args...)
	}
	op, err := st.Store.OperatorByID(ctx, b.OperatorID)
	if errors.Is(err, ErrNotFound) {
		return Operator{}, stale("badge", "this badge is from before the desks shared one staff list and does not work here: ask a supervisor for a new badge")
	}
	if err != nil {
		return Operator{}, err
	}
	if err := st.Keys.VerifyBadge(b, op.Name, BadgeScope{ID: l.DeskID}); err != nil {
		return Operator{}, stale("badge", "this badge is from before the desks shared one staff list and does not work here: ask a supervisor for a new badge")
	}
	switch {
	case op.RemovedAt != 0:
		return Operator{}, st.refuse(ctx, op.Name, SignInBadge, "%s was removed from the staff list on %s: their badge no longer works", op.Name, FormatTime(op.RemovedAt))
	case b.Version != op.BadgeVersion:
		return Operator{}, stale(op.Name, "this badge of %s is from before this desk joined the staff list and no longer works: ask a supervisor for a new badge", op.Name)
	}
	return op, st.Store.AuditSignIn(ctx, op.Name, SignInBadge, true, "", st.actor(ctx, op.Name))
}

// SignInPIN checks an operator's name and PIN. After PINTries wrong PINs
// for a name its PIN is checked no more for a while, longer after every
// further one; after DeskPINTries wrong PINs of any names in a short time,
// no PIN at the desk is (see PINTries).
func (st *Operators) SignInPIN(ctx context.Context, name, pin string) (Operator, error) {
	l, err := st.pinLock(ctx, name)
	if err != nil {
		return Operator{}, err
	}
	if l.Name > 0 {
		return Operator{}, &Error{Kind: KindConflict, Err: ErrSignInRefused,
			Message: fmt.Sprintf("too many wrong PINs for %s: try again in %s, or sign in with a badge", name, roundUp(l.Name))}
	}
	if l.Desk > 0 {
		return Operator{}, &Error{Kind: KindConflict, Err: ErrSignInRefused,
			Message: fmt.Sprintf("too many wrong PINs at this desk: try again in %s, or sign in with a badge", roundUp(l.Desk))}
	}
	op, err := st.Store.OperatorByName(ctx, name)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return Operator{}, err
	}
	// The hash is computed even for an unknown name, so the time taken does
	// not tell which names exist.
	hash := op.PINHash
	if hash == "" {
		hash = unknownOperatorHash()
	}
	if !PINMatches(hash, pin) || err != nil {
		return Operator{}, st.refuse(ctx, name, SignInPIN, "the name or PIN is wrong: check both and try again")
	}
	return op, st.Store.AuditSignIn(ctx, op.Name, SignInPIN, true, "", st.actor(ctx, op.Name))
}

// PINLock is how much longer a PIN sign-in waits: for one name after too
// many wrong PINs for it, and for every name at the desk after too many
// of any names (0: no wait).
type PINLock struct {
	Name, Desk time.Duration
}

// Locked reports whether a PIN sign-in of the name waits now.
func (l PINLock) Locked() bool { return l.Name > 0 || l.Desk > 0 }

// Wait is how long until the name's PIN is checked again.
func (l PINLock) Wait() time.Duration { return max(l.Name, l.Desk) }

// PINLock says whether name's PIN sign-in waits now, and how long (the
// Staff screen shows it beside the name; a supervisor lifts it with
// LiftPINLock).
func (st *Operators) PINLock(ctx context.Context, name string) (PINLock, error) {
	return st.pinLock(ctx, name)
}

func (st *Operators) pinLock(ctx context.Context, name string) (PINLock, error) {
	now := st.Now()
	f, err := st.Store.PINFailures(ctx, pinSubject(name), now.Add(-deskPINWindow).Unix())
	if err != nil {
		return PINLock{}, err
	}
	var l PINLock
	// Fewer than PINTries wrong PINs lock nothing, whenever the last was
	// (a clock set back puts it in the future).
	if wait := time.Unix(f.NameLast, 0).Add(pinLock(f.Name)).Sub(now); f.Name >= PINTries && wait > 0 {
		l.Name = wait
	}
	if wait := time.Unix(f.DeskFrom, 0).Add(deskPINWindow).Sub(now); f.Desk >= DeskPINTries && wait > 0 {
		l.Desk = wait
	}
	return l, nil
}

// LiftPINLock lets a current operator sign in by PIN again at once, after
// too many wrong PINs (a supervisor at the desk knows who is asking): the
// wrong PINs before it count no more, for the name nor for the desk; by
// is audited. The lockout is the desk's own, so the lift is too: it is
// no staff change and goes to no server.
func (st *Operators) LiftPINLock(ctx context.Context, name, by string) (Operator, error) {
	op, err := st.Find(ctx, name)
	if err != nil {
		return Operator{}, err
	}
	return op, st.Store.LiftPINLock(ctx, op.Name, st.actor(ctx, by))
}

// pinLock is how long the desk waits after the last of failures wrong PINs.
func pinLock(failures int) time.Duration {
	if failures < PINTries {
		return 0
	}
	if failures-PINTries >= 5 { // 2⁵ minutes is past the cap; no shift overflows
		return pinMaxWait
	}
	return min(pinWait<<(failures-PINTries), pinMaxWait)
}

// unknownOperatorHash is checked for names that do not exist (see SignInPIN).
// Made on first use: hashing costs 19 MiB, which no other command should pay.
var unknownOperatorHash = sync.OnceValue(func() string { h, _ := HashPIN("unknown operator"); return h })

// pinSubject is the name a sign-in attempt is logged and counted under:
// the name typed, or "?" for what cannot be a name.
func pinSubject(name string) string {
	if name == "" || CheckOperator(name) != nil {
		return "?"
	}
	return name
}

// refuse audits a refused sign-in and returns the message for the clerk.
func (st *Operators) refuse(ctx context.Context, subject string, method SignInMethod, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	subject = pinSubject(subject)
	if err := st.Store.AuditSignIn(ctx, subject, method, false, msg, st.actor(ctx, "")); err != nil {
		return err
	}
	return &Error{Kind: KindInvalid, Message: msg, Err: ErrSignInRefused}
}

// refuseAs is refuse of a badge, the refusal wrapping why too, so the
// window can say it in its language.
func (st *Operators) refuseAs(ctx context.Context, why error, subject, format string, args ...any) error {
	err := st.refuse(ctx, subject, SignInBadge, format, args...)
	if e, ok := err.(*Error); ok {
		e.Err = errors.Join(ErrSignInRefused, why)
	}
	return err
}

func roundUp(d time.Duration) string {
	if d <= time.Minute {
		return "1 minute"
	}
	return fmt.Sprintf("%d minutes", int((d+time.Minute-1)/time.Minute))
}

// OperatorBadge is one current operator with the text of their badge QR.
type OperatorBadge struct {
	Operator
	Badge string
}

// Badges returns the badges of every current operator, by name, for the
// badge sheet; an error when there is nobody to print.
func (st *Operators) Badges(ctx context.Context) ([]OperatorBadge, error) {
	ops, err := st.List(ctx, false)
	if err != nil {
		return nil, err
	}
	if len(ops) == 0 {
		return nil, Errorf(KindInvalid, "there are no operators to print badges for: add them with 'qrdesk operators add NAME'")
	}
	out := make([]OperatorBadge, len(ops))
	for i, op := range ops {
		text, err := st.Badge(op)
		if err != nil {
			return nil, err
		}
		out[i] = OperatorBadge{Operator: op, Badge: text}
	}
	return out, nil
}
