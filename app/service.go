package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"qrdesk/protocol"
)

// MaxBatch is the largest batch one issue may create.
const MaxBatch = 1_000_000

// Service is qrdesk's use cases on top of a Store and a key ring.
type Service struct {
	Store Store
	Keys  Keys
	Now   func() time.Time // injected so expiry and "today" are testable
	Log   *slog.Logger     // one JSON line per redemption attempt
	// Remote, when set, is the central server: scans are decided there
	// first and locally only when it does not answer in OnlineTimeout.
	Remote Remote
	// OnlineTimeout is how long a scan waits for the server before the desk
	// decides alone; OfflineFor is how long scans are then decided locally
	// (until a sync succeeds), so a dead network does not cost every scan a
	// timeout. NewService sets the defaults below.
	OnlineTimeout, OfflineFor time.Duration
	// Unprintable, when set, returns the first character of a text that
	// none of the label fonts holds (bad false when every one prints):
	// Issue refuses such a ref and UpdateSettings such a label title, so
	// nothing is printed as an empty box. The desk sets it to
	// printing.Unprintable (app imports no printing).
	Unprintable func(s string) (r rune, bad bool)

	mu         sync.Mutex
	remoteDown time.Time      // after an online scan got no answer: decide locally until then
	refusal    *ServerRefusal // the server's last refusal of this desk itself
	printed    printedCache   // the day's print figures for the report (deskreport.go)
	printGen   uint64         // prints finished by this service
	lastReport DeskReport     // the figures the server last accepted (deskreport.go)
	// reportNoOldest: the server refused a report carrying the oldest
	// waiting event's age (a server from before the field): not sent again
	// to this process's server.
	reportNoOldest bool

	// unstored: the server's redemptions of this process's online scans
	// that the desk's database refused to record (unstored.go).
	unstored map[string]unstoredAnswer

	clockMu sync.Mutex // orders the clock's updates and their saving
	clock   clockRef   // the last clock measurement, against the monotonic clock (clock.go)
}

// Defaults of Service.OnlineTimeout and Service.OfflineFor.
const (
	DefaultOnlineTimeout = time.Second
	DefaultOfflineFor    = 10 * time.Second
)

// NewService wires a service with the real clock.
func NewService(st Store, keys Keys, log *slog.Logger) *Service {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{Store: st, Keys: keys, Now: time.Now, Log: log, OnlineTimeout: DefaultOnlineTimeout, OfflineFor: DefaultOfflineFor}
}

// ParseDay reads YYYY-MM-DD as a local day of the service's clock; ""
// means today on the desk's corrected clock (ClockNow, see ParseDate).
func (s *Service) ParseDay(date string) (time.Time, error) {
	return s.parseDay(context.Background(), date)
}

func (s *Service) parseDay(ctx context.Context, date string) (time.Time, error) {
	if date != "" { // a given day needs only the clock's zone: no measurement read
		return ParseDate(date, s.Now())
	}
	return ParseDate(date, s.ClockNow(ctx))
}

// IssueRequest is what the clerk asks for; zero values take the settings.
type IssueRequest struct {
	Count    int
	Date     string // YYYY-MM-DD, "" for today
	Type     string
	Ref      string
	Expires  string // "", never, eod or a duration
	Operator string
	// Supervisor, when set, lets a desk restored from a backup issue
	// before its first sync since (ErrRestoredNotSynced): the supervisor
	// who allows it.
	Supervisor string
	Progress   func(done, total int) // optional, for large batches
	// DropCodes: Issue returns the batch without its codes and keeps none
	// in memory (a million codes held take about 150 MB); read them back
	// with EachBatchCode.
	DropCodes bool
	// Order, when set, is the pickup order the batch is issued for
	// (ImportOrders): recorded with it, once.
	Order *OrderRow
	// keysChecked: the caller checked the key file against the database
	// (CheckKeyFile) for this run of batches. ImportOrders checks once for
	// the whole file: the check counts every stored label, and once per
	// order it made importing 10,000 orders take minutes.
	keysChecked bool
}

// ErrRestoredNotSynced is why a desk restored from a backup issues no
// labels before it syncs: it knows nothing of the labels it issued after
// the backup, which the server may hold, and new labels could repeat
// their serials. A supervisor may override (IssueRequest.Supervisor).
var ErrRestoredNotSynced = errors.New("restored from a backup and not synced since")

// Issue creates one batch, whole or not at all.
func (s *Service) Issue(ctx context.Context, req IssueRequest) (Batch, []Code, error) {
	spec, makeCode, err := s.issueSpec(ctx, req)
	if err != nil {
		return Batch{}, nil, err
	}
	return s.Store.IssueBatch(ctx, spec, makeCode)
}

// issueSpec checks req and returns the batch it describes, with what
// makes its codes.
func (s *Service) issueSpec(ctx context.Context, req IssueRequest) (BatchSpec, func(serial int) (Code, error), error) {
	set, err := s.Store.LoadSettings(ctx)
	if err != nil {
		return BatchSpec{}, nil, err
	}
	if req.Count == 0 {
		req.Count = set.Daily
	}
	if req.Count < 1 || req.Count > MaxBatch {
		return BatchSpec{}, nil, Errorf(KindInvalid, "count %d is not allowed: issue 1 to %d codes at a time", req.Count, MaxBatch)
	}
	if !req.keysChecked {
		if err := s.CheckKeyFile(ctx); err != nil {
			return BatchSpec{}, nil, err
		}
	}
	if err := s.checkRestored(ctx, set, req.Supervisor); err != nil {
		return BatchSpec{}, nil, err
	}
	// The label's day, its expiry and its issue time on the server's
	// clock: a desk 3 hours slow must not print 90-minute labels the
	// server already holds as expired, nor one hours fast labels
	// "issued" after honest desks' redemptions of them.
	now := s.ClockNow(ctx)
	day, err := ParseDate(req.Date, now)
	if err != nil {
		return BatchSpec{}, nil, err
	}
	if err := CheckIssueDate(day, now); err != nil {
		return BatchSpec{}, nil, err
	}
	if len(req.Type) > 40 {
		return BatchSpec{}, nil, Errorf(KindInvalid, "type may have up to 40 characters: shorten it")
	}
	if err := CheckRef(req.Ref); err != nil {
		return BatchSpec{}, nil, &Error{Kind: KindInvalid, Message: err.Error()}
	}
	if err := s.checkPrintable("ref", req.Ref); err != nil {
		return BatchSpec{}, nil, err
	}
	exp := set.Expires
	if req.Expires != "" {
		if exp, err = ParseExpiry(req.Expires); err != nil {
			return BatchSpec{}, nil, &Error{Kind: KindInvalid, Message: err.Error()}
		}
	}
	spec := BatchSpec{
		Count: req.Count, LabelDate: FormatDate(day), Prefix: set.Prefix,
		Serial: set.DateSerial, Type: req.Type, Ref: req.Ref,
		ExpireAt: exp.At(now, day), CreatedAt: now.Unix(),
		Actor: Actor{Station: set.StationName, Operator: req.Operator}, Progress: req.Progress, Order: req.Order,
		DropCodes: req.DropCodes,
	}
	if spec.ExpireAt != 0 && spec.ExpireAt <= now.Unix() {
		return BatchSpec{}, nil, Errorf(KindInvalid, "these codes would already be expired (label date %s with expiry %s): pick a later date or expiry", spec.LabelDate, exp)
	}
	if set.DateSerial {
		spec.StationID = set.StationID
	}
	return spec, s.codeMaker(set, day, "issue fewer codes today or raise the serial digits in settings"), nil
}

// checkRestored refuses to issue at a desk with serials and a server that
// was restored from a backup and has not synced since
// (ErrRestoredNotSynced), unless supervisor, a current supervisor of the
// desk (any name at a desk without operators), allows it; the batch's
// serials then continue after the highest this desk knows.
func (s *Service) checkRestored(ctx context.Context, set Settings, supervisor string) error {
	if !set.DateSerial || s.Remote == nil {
		return nil // no serials, or no server that could hold them
	}
	at, err := s.Store.RestoredUnsynced(ctx)
	if err != nil || at == 0 {
		return err
	}
	if supervisor = strings.TrimSpace(supervisor); supervisor == "" {
		return &Error{Kind: KindConflict, Err: ErrRestoredNotSynced, Message: fmt.Sprintf(
			"this desk was restored from a backup at %s and has not synced since: the server may hold labels it issued after the backup, and new labels could repeat their numbers. Sync first; if the server cannot be reached, a supervisor may allow issuing anyway",
			FormatTime(at))}
	}
	staff := s.Operators()
	if has, err := staff.Any(ctx); err != nil || !has {
		return err
	}
	op, err := staff.Find(ctx, supervisor)
	if err != nil {
		return err
	}
	if !op.Supervisor {
		return Errorf(KindInvalid, "%s is not a supervisor: a supervisor must allow issuing before the sync", op.Name)
	}
	return nil
}

// codeMaker returns the function that makes and signs the code with a
// given daily serial for the label day, under the settings; past the
// serial digits it refuses with what to do (whatToDo).
func (s *Service) codeMaker(set Settings, day time.Time, whatToDo string) func(serial int) (Code, error) {
	maxSerial := 1
	for i := 0; i < set.SerialDigits; i++ {
		maxSerial *= 10
	}
	return func(serial int) (Code, error) {
		c := Code{Prefix: set.Prefix}
		if set.DateSerial {
			if serial >= maxSerial {
				return Code{}, Errorf(KindInvalid, "the daily serial would pass %d: %s", maxSerial-1, whatToDo)
			}
			c.Date, c.Station, c.Serial, c.SerialLen = day.Format("060102"), set.StationID, serial, set.SerialDigits
		}
		var err error
		if c.Random, err = randomString(RandomLen); err != nil {
			return Code{}, err
		}
		return c, s.Keys.Sign(&c)
	}
}

// NewTraceID returns 16 random hex characters: the id that ties a scan's
// log line, scan-log row, redemption and outbox event together, and the
// event id of other outbox events.
func NewTraceID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// decode runs the checks that need no database: normalise, parse, verify.
// A non-nil verdict is a refusal (malformed, bad_signature, or an
// operator badge).
func (s *Service) decode(raw string) (Code, string, *Verdict) {
	if IsBadge(raw) { // never a label; its text is a credential, kept out of logs
		return Code{}, "", &Verdict{Outcome: OutcomeBadge, Reason: "this is an operator badge, not a label"}
	}
	if LooksLikeBadge(raw) { // a badge misread: a credential all the same
		return Code{}, "", &Verdict{Outcome: OutcomeBadge, Reason: "this is an operator badge read wrongly, not a label: scan it again"}
	}
	norm := Normalize(raw)
	c, err := Parse(norm)
	if err != nil {
		var pe *ParseError
		reason := err.Error()
		if errors.As(err, &pe) {
			reason = pe.Reason
		}
		return Code{}, norm, &Verdict{Outcome: OutcomeMalformed, Code: norm, Reason: reason}
	}
	if err := s.Keys.Verify(c); err != nil {
		return c, c.String(), &Verdict{Outcome: OutcomeBadSignature, Code: c.String(), Reason: err.Error()}
	}
	return c, c.String(), nil
}

// Redeem turns one scan into a verdict, logging every attempt.
func (s *Service) Redeem(ctx context.Context, raw, operator string) (Verdict, error) {
	return s.RedeemScan(ctx, raw, operator, false)
}

// RedeemScan is Redeem for a desk that knows its previous scan: inARow says
// that scan was this label and redeemed it, so a repeat a moment later is
// OutcomeJustScanned (JustScanned), not a refusal.
func (s *Service) RedeemScan(ctx context.Context, raw, operator string, inARow bool) (Verdict, error) {
	start := time.Now()
	if err := CheckOperator(operator); err != nil {
		return Verdict{}, Errorf(KindInvalid, "%v: change the operator in Settings (or --operator)", err)
	}
	set, err := s.Store.LoadSettings(ctx)
	if err != nil {
		return Verdict{}, err
	}
	// A saved scanner map undoes a keyboard layout's garbling of scans.
	c, norm, refusal := s.decode(ApplyScannerMap(raw, set.ScannerMap))
	now := s.Now()
	a := Attempt{Actor: Actor{Station: set.StationName, Operator: operator}, TraceID: NewTraceID(), Raw: raw, Code: norm, At: now.Unix(), InARow: inARow}
	s.followClock(ctx, now) // a clock set since the last measurement: the offset follows it
	a.ExpiryAt = s.onServerClock(ctx, a.At)
	if refusal != nil && refusal.Outcome == OutcomeBadge {
		a.Raw = "(operator badge)"
	}
	var older error
	if refusal != nil && refusal.Outcome == OutcomeBadSignature && !s.Keys.Has(c.KeyID) {
		older = s.CheckKeyFile(ctx)
	}
	var v Verdict
	byServer := false // the server decided this scan (answered it)
	switch {
	case older != nil:
		// Not a forgery: a label of a key this key file lacks, and this
		// database holds labels of keys it lacks. Say so, count nothing.
		err = older
	case refusal != nil:
		v = *refusal
		err = s.Store.LogScan(ctx, a, v)
	default:
		if u, ok := s.takeUnstored(c); ok {
			// This desk's own earlier scan, redeemed by the server, never
			// stored here: the parcel goes now.
			a.TraceID = u.a.TraceID
			v, err = s.storeUnstored(ctx, c, u)
			byServer = true
			break
		}
		var decided bool
		v, decided, err = s.redeemOnline(ctx, c, a)
		byServer = decided
		if !decided {
			a.AcceptUnknown = s.Remote != nil && err != nil
			site, refuse := "", false
			if a.AcceptUnknown {
				site, refuse = s.otherSite(ctx, c)
			}
			if refuse {
				v = Verdict{Outcome: OutcomeUnknown, Code: c.String(), Site: site,
					Reason: fmt.Sprintf("label of site %s: ask the supervisor (this desk is offline and does not decide other sites' labels)", site)}
				err = s.Store.LogScan(ctx, a, v)
			} else {
				v, err = s.Store.Redeem(ctx, c, a)
				if site != "" && v.Outcome == OutcomeRedeemed {
					v.Site = site
					v.Reason = "accepted offline: a label of site " + site + ", decided here alone; the server will confirm"
				}
			}
		}
	}
	v.TraceID = a.TraceID
	if err == nil && v.Outcome.Held() {
		v.Order = s.orderParcel(ctx, v.Code)
	}
	s.logAttempt(ctx, v, a, time.Since(start), err)
	if err == nil && !byServer && !v.Outcome.Accepted() {
		s.printedChanged() // a refusal the server never sees: the next report counts it
	}
	if err != nil {
		return Verdict{}, err
	}
	return v, nil
}

// redeemOnline asks the central server first. It reports decided=false when
// there is no server, it does not answer (no connection, a timeout, a 5xx:
// err is ErrTransient), or it does not know the code yet (its batch is not
// uploaded): then the desk decides and the outbox carries the event to the
// server later. Any other answer decides, a refusal too: a revoked desk or
// one with the wrong key ring redeems nothing alone.
func (s *Service) redeemOnline(ctx context.Context, c Code, a Attempt) (Verdict, bool, error) {
	if s.Remote == nil {
		return Verdict{}, false, nil
	}
	// What this desk already refuses (a label it disabled, used or saw
	// expire, whether or not the server has heard yet) is refused here: the
	// server must not redeem a label this desk's clerk disabled, nor one
	// this desk redeemed offline and has not uploaded yet. A label past its
	// expiry by this desk's clock alone (stored unused) is asked about:
	// online, the server's clock decides expiry, and a desk whose clock is
	// ahead must not turn a customer away on its own. A label another label
	// of whose entitlement this desk knows was used is refused here too:
	// asked online, an answer that came too late would leave the server
	// holding a redemption the desk then refused.
	if rec, err := s.Store.Lookup(ctx, c); err == nil && (!askServer(rec, a.At, a.ExpiryAt) || rec.EntitlementUsed != "" ||
		rec.Status == StatusExpired && s.expireWaiting(ctx, c)) {
		return Verdict{}, false, nil
	}
	if s.undoWaiting(ctx, c) {
		return Verdict{}, false, nil
	}
	s.mu.Lock()
	down := time.Now().Before(s.remoteDown)
	s.mu.Unlock()
	if down {
		return Verdict{}, false, ErrTransient
	}
	rctx, cancel := context.WithTimeout(s.probeClock(ctx), s.OnlineTimeout)
	r, err := s.Remote.Redeem(rctx, s.Keys.RingID(), protocol.Event{EventID: a.TraceID, Kind: protocol.KindRedeem, Code: c.String(), Operator: a.Operator, At: a.At})
	cancel()
	var refusal *ServerRefusal
	switch {
	case errors.As(err, &refusal):
		s.setRefusal(DeskRefusal(err))
		v := Verdict{Outcome: OutcomeServerRefused, Code: c.String(), Reason: refusal.Message}
		a.ByServer = true
		return v, true, s.Store.LogScan(ctx, a, v)
	case err != nil:
		s.mu.Lock()
		s.remoteDown = time.Now().Add(s.OfflineFor)
		s.mu.Unlock()
		return Verdict{}, false, err // no answer: the caller decides here
	}
	s.setRefusal(nil)
	if r.Outcome == protocol.OutcomeUnknown {
		return Verdict{}, false, nil // the server has not got this batch yet
	}
	a.ByServer = true
	if r.Outcome == protocol.OutcomeRejected {
		// The server refused this scan (its operator was removed from the
		// staff list): nothing was decided, the label stays as it is and
		// the parcel does not go.
		v := Verdict{Outcome: OutcomeServerRefused, Code: c.String(), Reason: r.Reason}
		return v, true, s.Store.LogScan(ctx, a, v)
	}
	v, err := s.Store.MirrorRemote(ctx, c, a, r)
	if err != nil && r.Outcome == protocol.OutcomeRedeemed {
		s.keepUnstored(c, a, r) // the scan errs, the parcel stays: the next scan hands it over
	}
	v.Site = r.Site // a label of another site: where it was issued
	return v, true, err
}

// expireWaiting reports whether this desk's close expired c and the
// server has not heard yet: the close holds here until it has.
func (s *Service) expireWaiting(ctx context.Context, c Code) bool {
	waiting, err := s.Store.ExpireWaiting(ctx, c)
	return err != nil || waiting
}

// otherSite returns the site of a label this desk does not hold when the
// server announced (at the last enrolment) that its station letter is
// another site's, and whether the deployment says to refuse such a label
// while offline (protocol.CrossSiteRefuse). "" when the label is held
// here, of this site, or of a letter no station had at the enrolment.
func (s *Service) otherSite(ctx context.Context, c Code) (site string, refuse bool) {
	if !c.HasSerial() {
		return "", false
	}
	if _, err := s.Store.Lookup(ctx, c); !errors.Is(err, ErrNotFound) {
		return "", false
	}
	st, err := s.Store.ServerState(ctx)
	if err != nil || st.Sites == nil {
		return "", false
	}
	site = st.Sites.Letters[c.Station]
	if site == "" || site == st.Sites.Site {
		return "", false
	}
	return site, st.Sites.CrossSiteOffline == protocol.CrossSiteRefuse
}

// askServer reports whether an online scan of rec goes to the server: it
// would redeem here at now, or it is refused here only because this desk's
// clock says it expired, or it is stored expired while its expiry is still
// to come on the server's clock (serverNow: a 'qrdesk expire' on a clock
// that was ahead, or a close the server may not have applied; the server
// holds what it holds, and this desk's own close still waiting in the
// outbox is refused before, as undoWaiting's undo).
func askServer(rec CodeRecord, now, serverNow int64) bool {
	switch VerdictFor(rec, now).Outcome {
	case OutcomeValid:
		return true
	case OutcomeExpired:
		return rec.Status == StatusUnused || rec.ExpireAt > serverNow
	}
	return false
}

// setRefusal remembers whether the server refuses this desk itself, for
// the Scan screen and the sync banner.
func (s *Service) setRefusal(r *ServerRefusal) {
	s.mu.Lock()
	s.refusal = r
	s.mu.Unlock()
}

// DeskRefused returns the server's last refusal of this desk itself
// (revoked, unknown token, wrong key ring), or nil while it accepts it.
func (s *Service) DeskRefused() *ServerRefusal {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refusal
}

func (s *Service) logAttempt(ctx context.Context, v Verdict, a Attempt, d time.Duration, err error) {
	attrs := []slog.Attr{
		slog.String("trace_id", a.TraceID), slog.String("code", a.Code),
		slog.String("outcome", string(v.Outcome)), slog.Int("affected_rows", v.Affected),
		slog.String("status", string(v.Status)), slog.String("station", a.Station),
		slog.String("operator", a.Operator), slog.Float64("duration_ms", float64(d.Microseconds())/1000),
	}
	level := slog.LevelInfo
	if err != nil {
		level = slog.LevelError
		attrs = append(attrs, slog.String("error", err.Error()))
	}
	s.Log.LogAttrs(ctx, level, "redeem", attrs...)
}

// Check gives the verdict a scan would get, without redeeming or logging.
func (s *Service) Check(ctx context.Context, raw string) (Verdict, error) {
	c, _, refusal := s.decode(raw)
	if refusal != nil {
		return *refusal, nil
	}
	rec, err := s.Store.Lookup(ctx, c)
	if errors.Is(err, ErrNotFound) {
		return Verdict{Outcome: OutcomeUnknown, Code: c.String(), Reason: "not in this station's database"}, nil
	}
	if err != nil {
		return Verdict{}, err
	}
	v := VerdictFor(rec, s.ClockNow(ctx).Unix())
	v.Order = s.orderParcel(ctx, v.Code)
	return v, nil
}

// VerdictFor explains a stored record: valid when it would redeem at now.
func VerdictFor(rec CodeRecord, now int64) Verdict {
	v := Verdict{Code: rec.Code, Status: rec.Status, Record: &rec, ExpireAt: rec.ExpireAt}
	switch {
	case rec.Status == StatusUsed:
		v.Outcome, v.UsedAt, v.UsedStation, v.UsedOperator = OutcomeAlreadyUsed, rec.UsedAt, rec.UsedStation, rec.UsedOperator
		v.Reason = "already used"
	case rec.Status == StatusDisabled:
		v.Outcome, v.DisabledReason, v.Reason = OutcomeDisabled, rec.DisabledReason, "disabled: "+rec.DisabledReason
	case rec.Status == StatusExpired || (rec.ExpireAt != 0 && rec.ExpireAt <= now):
		v.Outcome, v.Reason = OutcomeExpired, "expired at "+FormatTime(rec.ExpireAt)
		if rec.ExpireAt == 0 || rec.ExpireAt > now {
			v.Reason = "expired when its day was closed"
		}
	default:
		v.Outcome = OutcomeValid
	}
	return v
}

// SetDisabled disables (with a reason) or re-enables a code.
func (s *Service) SetDisabled(ctx context.Context, raw string, disable bool, reason, operator string) (CodeRecord, error) {
	c, _, refusal := s.decode(raw)
	if refusal != nil {
		return CodeRecord{}, Errorf(KindInvalid, "%s", refusal.Message())
	}
	if disable && len([]rune(reason)) < 3 {
		return CodeRecord{}, Errorf(KindInvalid, "give a reason of at least 3 characters for disabling the code")
	}
	if err := CheckReason(reason); err != nil {
		return CodeRecord{}, Errorf(KindInvalid, "%v", err)
	}
	if err := CheckOperator(operator); err != nil {
		return CodeRecord{}, Errorf(KindInvalid, "%v", err)
	}
	set, err := s.Store.LoadSettings(ctx)
	if err != nil {
		return CodeRecord{}, err
	}
	return s.Store.SetDisabled(ctx, c, disable, reason, Actor{Station: set.StationName, Operator: operator})
}

// Search finds codes; a whole valid code is looked up exactly.
func (s *Service) Search(ctx context.Context, q SearchQuery) ([]CodeRecord, error) {
	if q.Limit <= 0 || q.Limit > 10000 {
		q.Limit = 100
	}
	if q.Text != "" {
		if c, _, refusal := s.decode(q.Text); refusal == nil {
			q.Exact = &c
		}
	}
	return s.Store.Search(ctx, q)
}

// Stats returns the figures of a local day ("" for today).
func (s *Service) Stats(ctx context.Context, date string) (Stats, error) {
	day, err := s.parseDay(ctx, date)
	if err != nil {
		return Stats{}, err
	}
	set, err := s.Store.LoadSettings(ctx)
	if err != nil {
		return Stats{}, err
	}
	st, err := s.dayStats(ctx, day, set.StationName)
	if err != nil {
		return Stats{}, err
	}
	st.AllDesks, err = s.allDesks(ctx, day.Unix(), day.AddDate(0, 0, 1).Unix())
	return st, err
}

// DailyFigures returns the figures of the last n local days, oldest first
// (the Today screen's chart). A code's own history is CodeHistory.
func (s *Service) DailyFigures(ctx context.Context, n int) ([]Stats, error) {
	today := Day(s.ClockNow(ctx))
	set, err := s.Store.LoadSettings(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Stats, 0, n)
	for i := n - 1; i >= 0; i-- {
		st, err := s.dayStats(ctx, today.AddDate(0, 0, -i), set.StationName)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

// dayStats counts the figures of the local day that starts at day (local
// midnight). A day is 23 or 25 hours long when the clocks change.
func (s *Service) dayStats(ctx context.Context, day time.Time, station string) (Stats, error) {
	date := FormatDate(day)
	st, err := s.Store.Stats(ctx, date, station, day.Unix(), day.AddDate(0, 0, 1).Unix())
	if err != nil {
		return Stats{}, err
	}
	st.Date = date
	return st, nil
}

// Expire marks every code whose expiry passed, on the desk's corrected
// clock (ClockNow): a desk days fast must not mark here labels the server
// still holds valid.
func (s *Service) Expire(ctx context.Context) (int64, error) {
	return s.Store.ExpireDue(ctx, s.ClockNow(ctx).Unix())
}

// UpdateSettings applies key/value changes after validating all of them.
func (s *Service) UpdateSettings(ctx context.Context, changes map[string]string, operator string) (Settings, error) {
	set, err := s.Store.LoadSettings(ctx)
	if err != nil {
		return Settings{}, err
	}
	was := set.StationID
	for _, k := range slices.Sorted(maps.Keys(changes)) {
		if err := set.Set(k, changes[k]); err != nil {
			return Settings{}, &Error{Kind: KindInvalid, Message: err.Error(), Err: err}
		}
	}
	if set.StationID != was {
		if err := s.checkEnrolledLetter(ctx, set.StationID); err != nil {
			return Settings{}, err
		}
	}
	if _, ok := changes["label_title"]; ok {
		if err := s.checkPrintable("label title", set.LabelTitle); err != nil {
			return Settings{}, err
		}
	}
	if err := s.Store.SaveSettings(ctx, set, Actor{Station: set.StationName, Operator: operator}); err != nil {
		return Settings{}, err
	}
	return set, nil
}

// LetterEnrolledError refuses a station letter other than the one the
// server enrolled the desk with (ServerState.Letter).
type LetterEnrolledError struct {
	Station string // the desk's station at the server
	Letter  string // the letter the server enrolled it with
	Asked   string // the letter refused
}

func (e *LetterEnrolledError) Error() string {
	return fmt.Sprintf("this desk is enrolled at the server as station %q with letter %s, and keeps it: the server refuses its labels of any other letter, and letter %s's serials are another desk's. "+
		"The administrator changes a desk's letter at the server before it issues labels; the desk takes it at its next sync", e.Station, e.Letter, e.Asked)
}

// checkEnrolledLetter refuses letter when the desk was enrolled at the
// server with another (a desk never enrolled takes any letter: its first
// sync sets the server's).
func (s *Service) checkEnrolledLetter(ctx context.Context, letter string) error {
	st, err := s.Store.ServerState(ctx)
	if err != nil {
		return err
	}
	if st.Letter == "" || st.Letter == letter {
		return nil
	}
	e := &LetterEnrolledError{Station: st.Station, Letter: st.Letter, Asked: letter}
	return &Error{Kind: KindInvalid, Message: e.Error(), Err: e}
}

// UnprintableError is the refusal of a text (a ref, a label title) that
// holds a character none of the label fonts can print.
type UnprintableError struct {
	What string // "ref", "label title", "name" (an operator's, printed on the badge)
	Char rune
}

func (e *UnprintableError) Error() string {
	return fmt.Sprintf("the %s holds %q (%U), a character the label fonts cannot print: type it without that character", e.What, string(e.Char), e.Char)
}

// checkPrintable refuses s (what: "ref", "label title") when it holds a
// character the label fonts cannot print (Service.Unprintable).
func (s *Service) checkPrintable(what, text string) error {
	if s.Unprintable == nil {
		return nil
	}
	if r, bad := s.Unprintable(text); bad {
		e := &UnprintableError{What: what, Char: r}
		return &Error{Kind: KindInvalid, Message: e.Error(), Err: e}
	}
	return nil
}

// ErrorfWrap wraps a cause with a user message.
func ErrorfWrap(kind ErrorKind, err error, format string, args ...any) *Error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...), Err: err}
}
