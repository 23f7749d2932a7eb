package faultsim

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"qrdesk/app"
)

// Config is one run. Zero values take the defaults below.
type Config struct {
	Seed   uint64
	Engine string // for messages: SQLite or PostgreSQL
	DSN    string // the server database: a SQLite file or a postgres:// URL
	Dir    string // the desks' databases and the key file

	Desks, CodesPerDesk, Groups int
	// OnlineTimeout and OfflineFor are the desks' (short, so a run is fast);
	// SyncTimeout bounds one sync during the schedule; SyncInterval is the
	// pause before each of the final sync rounds (a desk syncs every 5 s;
	// a server may take a moment to publish a commit in its feed).
	OnlineTimeout, OfflineFor, SyncTimeout, SyncInterval time.Duration
	// Off switches fault classes off (see FaultClasses), to look past a
	// known bug; it changes the schedule a seed draws.
	Off []string
	// SkipDayFigures leaves InvDayFigures out (a desk's own day figures
	// equal the dashboard's row for it): QRDESK_FAULTSIM_DAY_FIGURES=0 in
	// the tests, to look past a failure of it.
	SkipDayFigures bool
	// Topology switches on the families of actions and the invariants of
	// issue 33 (TopologyClasses, topology.go); nil: none.
	Topology []string
}

func (c Config) withDefaults() Config {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.Desks, 4)
	def(&c.CodesPerDesk, 24)
	def(&c.Groups, 60)
	defD := func(v *time.Duration, d time.Duration) {
		if *v == 0 {
			*v = d
		}
	}
	defD(&c.OnlineTimeout, 150*time.Millisecond)
	defD(&c.OfflineFor, 300*time.Millisecond)
	defD(&c.SyncTimeout, 700*time.Millisecond)
	defD(&c.SyncInterval, 100*time.Millisecond)
	return c
}

// label is one code of the universe: every desk's batch, then the
// replacements (Code empty while, or if, the desk has not made it).
type label struct {
	Name, Code string
	Desk       int
	ExpireAt   int64
	Of         int // the label it replaces, -1 for none
}

// undoRecord is one Undo step and what came of it.
type undoRecord struct {
	Group, Desk, Label int
	Outside            bool   // the step was drawn past the window
	Within             bool   // the desk had a standing redemption of its own within the window
	RedeemedAt, Since  int64  // that redemption's time (0: none), the window's start
	Accepted           bool   // the desk undid it
	EventID, Server    string // the undo's event, what the server said
	Undoes             string // the redemption it undid (its trace id)
}

// restoreRecord is one server restore: the redemptions the server held just
// before it (acknowledged: they must come back).
type restoreRecord struct {
	Group, Backup int
	Held          map[string]bool
}

// action is a clerk's action on a label and what the desk answered.
type action struct {
	Group, Step, Desk, Label int
	Kind                     StepKind
	Result                   string
}

// Result is what a run did and what the checker found.
type Result struct {
	Config     Config
	Plan       Plan
	Log        []string // the schedule as it ran: each step and what came of it
	Violations []Violation
	Notes      []string // facts worth knowing that break no invariant
	Unhealed   []string // final syncs that failed
	Errors     []string // what the server logged as errors
	Stats      string
	Took       time.Duration
	report     string
}

// Failed reports whether an invariant broke.
func (r *Result) Failed() bool { return len(r.Violations) > 0 }

// run is the state of one run.
type run struct {
	cfg    Config
	plan   Plan
	srv    *central
	desks  []*desk
	labels []label
	byCode map[string]int

	mu       sync.Mutex
	verdicts []verdict
	actions  []action
	undos    []undoRecord
	restores []restoreRecord
	closes   int
	closeExp int // labels the closes expired
	log      []string
	unhealed []string
	clocks   clockFigures // what the clock invariants checked (checkclock.go)
	keyFile  string
	topo     topoRecords // what the topology's steps did (topology_run.go)
}

// Run sets up a server and cfg.Desks desks, runs the schedule of cfg.Seed
// through the fault proxies, brings everything back to health, syncs every
// desk until they are quiet (heal) and checks the invariants. An error is a failure of the
// harness itself (it could not set up), not of the product.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	start := time.Now()
	cfg = cfg.withDefaults()
	r := &run{cfg: cfg, plan: NewPlan(cfg), byCode: map[string]int{}}
	res := &Result{Config: cfg, Plan: r.plan}
	var err error
	if r.srv, err = startCentral(ctx, cfg.DSN); err != nil {
		return nil, err
	}
	defer r.srv.close()
	keyFile := filepath.Join(cfg.Dir, "deployment.key")
	if _, err := app.LoadKeys(keyFile, true); err != nil {
		return nil, err
	}
	r.keyFile = keyFile
	if err := r.setupTopology(ctx); err != nil {
		return nil, err
	}
	for i := 0; i < cfg.Desks; i++ {
		d, err := openDesk(ctx, cfg, i, keyFile, r.srv)
		if err != nil {
			return nil, fmt.Errorf("desk %s: %w", deskName(i), err)
		}
		defer d.close()
		r.desks = append(r.desks, d)
	}
	if err := r.issue(ctx); err != nil {
		return nil, err
	}
	for range r.plan.Replacements {
		r.labels = append(r.labels, label{Of: -1})
	}

	for g, group := range r.plan.Groups {
		if err := r.group(ctx, g, group); err != nil {
			return nil, err
		}
	}
	if err := r.heal(ctx); err != nil {
		return nil, err
	}
	if err := r.check(ctx, res); err != nil {
		return nil, err
	}
	res.Log, res.Unhealed, res.Errors = r.log, r.unhealed, r.srv.errors.lines()
	res.Took = time.Since(start)
	res.Stats = r.stats(res.Took)
	return res, nil
}

// issue makes every desk issue its batch and upload it; each desk syncs
// once, in order, so the first desks do not know the later ones' codes yet.
func (r *run) issue(ctx context.Context) error {
	for _, d := range r.desks {
		req := app.IssueRequest{Count: r.cfg.CodesPerDesk, Operator: "faultsim"}
		var codes []app.Code
		if d.idx == 2 {
			var err error
			if codes, err = r.issueExpiring(ctx, d); err != nil {
				return err
			}
		} else {
			_, batch, err := d.svc.Issue(ctx, req)
			if err != nil {
				return fmt.Errorf("desk %s issue: %w", deskName(d.idx), err)
			}
			codes = batch
		}
		for _, c := range codes {
			rec, err := d.db.Lookup(ctx, c)
			if err != nil {
				return err
			}
			n := len(r.labels)
			r.labels = append(r.labels, label{Name: labelName(n, r.cfg.CodesPerDesk, r.cfg.Desks), Code: c.String(), Desk: d.idx, ExpireAt: rec.ExpireAt, Of: -1})
			r.byCode[c.String()] = n
		}
		if _, err := d.svc.Sync(ctx); err != nil {
			return fmt.Errorf("desk %s first sync: %w", deskName(d.idx), err)
		}
	}
	return nil
}

// expiringIn are when desk C's labels expire by the server's clock, after
// they are issued, in four batches: within the run, so scans meet expiry,
// at desks whose clocks are behind or ahead.
var expiringIn = []time.Duration{0, 500 * time.Millisecond, time.Second, 1500 * time.Millisecond}

// issueExpiring issues desk C's labels, 90 minutes valid, with the desk's
// clock set back so each batch expires expiringIn after it is issued by the
// server's clock; the clock is right again for the desk's first sync.
func (r *run) issueExpiring(ctx context.Context, d *desk) ([]app.Code, error) {
	defer d.extra.Store(0)
	var out []app.Code
	per := (r.cfg.CodesPerDesk + len(expiringIn) - 1) / len(expiringIn)
	for _, in := range expiringIn {
		n := min(per, r.cfg.CodesPerDesk-len(out))
		if n <= 0 {
			break
		}
		d.extra.Store(int64(in - 90*time.Minute))
		_, codes, err := d.svc.Issue(ctx, app.IssueRequest{Count: n, Operator: "faultsim", Expires: "90m"})
		if err != nil {
			return nil, fmt.Errorf("desk %s issue: %w", deskName(d.idx), err)
		}
		out = append(out, codes...)
	}
	return out, nil
}

// group runs the steps of one group at once.
func (r *run) group(ctx context.Context, g int, steps []Step) error {
	results := make([]string, len(steps))
	errs := make([]error, len(steps))
	var wg sync.WaitGroup
	for i, s := range steps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = r.step(ctx, g, i, s)
		}()
	}
	wg.Wait()
	for i, s := range steps {
		r.log = append(r.log, fmt.Sprintf("g%02d.%d %s → %s", g+1, i+1, r.plan.stepString(s), results[i]))
	}
	return errors.Join(errs...)
}

// step runs one step; the error is the harness's own failure.
func (r *run) step(ctx context.Context, g, i int, s Step) (string, error) {
	d := r.desks[s.Desk]
	switch s.Kind {
	case Scan, Disable, Enable, Replace, Undo:
		if r.labels[s.Label].Code == "" {
			return "skipped: " + r.plan.name(s.Label) + " was never made (its replacement or issue was refused)", nil
		}
	}
	switch s.Kind {
	case Scan:
		return r.scan(ctx, g, i, d, s.Label), nil
	case Replace:
		return r.replace(ctx, g, i, d, s), nil
	case Undo:
		return r.undo(ctx, g, i, d, s)
	case CloseDay:
		lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		return r.closeDay(lctx, g, d)
	case Backup:
		if err := r.srv.backup(ctx, s.Backup); err != nil {
			return "", fmt.Errorf("server backup: %w", err)
		}
		r.mu.Lock()
		r.topo.serverBackups[s.Backup] = g
		r.mu.Unlock()
		return "ok", nil
	case ServerRestore:
		return r.restore(ctx, g, s)
	case Disable, Enable:
		lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		_, err := d.svc.SetDisabled(lctx, r.labels[s.Label].Code, s.Kind == Disable, "damaged label", "clerk "+deskName(d.idx))
		out := map[StepKind]string{Disable: "disabled", Enable: "enabled"}[s.Kind]
		if err != nil {
			out = "refused: " + app.ErrorMessage(err)
		}
		r.mu.Lock()
		r.actions = append(r.actions, action{Group: g, Step: i, Desk: d.idx, Label: s.Label, Kind: s.Kind, Result: out})
		r.mu.Unlock()
		return out, nil
	case Sync:
		sctx, cancel := context.WithTimeout(ctx, r.cfg.SyncTimeout)
		defer cancel()
		st, err := d.svc.Sync(sctx)
		if err != nil {
			return "failed: " + oneLine(err), nil
		}
		d.unsynced.Store(false)
		return fmt.Sprintf("ok (cursor %d, %d waiting, %d rejected)", st.Cursor, st.Waiting, st.Rejected), nil
	case SetMode:
		d.proxy.setMode(s.Mode)
		return "ok", nil
	case Restart:
		if err := r.srv.restart(ctx); err != nil {
			return "", fmt.Errorf("server restart: %w", err)
		}
		return "ok", nil
	case Revoke:
		err := r.srv.revokeStation(ctx, d.serverName)
		d.revoked.Store(true) // once in effect: a scan that starts now meets the revocation
		return "ok (station " + d.serverName + ")", err
	case Retoken:
		if err := d.newToken(ctx, r.srv); err != nil {
			return "", err
		}
		return "ok (station " + d.serverName + ")", nil
	case Skew:
		d.skew.Store(int64(s.Skew))
		return "ok", nil
	case MoveDesk, IssueMore, DeskBackup, DeskRestore, LoseDB, ClockDays, Expire, StaffRemove, RenameSite, StaffClose, Rehire, ImportOrder:
		return r.topoStep(ctx, g, i, d, s)
	}
	return "", fmt.Errorf("unknown step kind %d", s.Kind)
}

// replace replaces a label at a desk; the new label takes index s.New.
func (r *run) replace(ctx context.Context, g, i int, d *desk, s Step) string {
	lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	rep, err := d.svc.Replace(lctx, app.ReplaceRequest{Code: r.labels[s.Label].Code, Reason: "label torn", Operator: "clerk " + deskName(d.idx)})
	out := "refused: "
	if err != nil {
		out += app.ErrorMessage(err)
	} else {
		name := r.plan.name(s.New)
		r.mu.Lock()
		r.labels[s.New] = label{Name: name, Code: rep.New.Code, Desk: d.idx, ExpireAt: rep.New.ExpireAt, Of: s.Label}
		r.byCode[rep.New.Code] = s.New
		r.mu.Unlock()
		out = "replaced by " + name + " (" + rep.New.Code + ")"
	}
	r.mu.Lock()
	r.actions = append(r.actions, action{Group: g, Step: i, Desk: d.idx, Label: s.Label, Kind: Replace, Result: out})
	if err == nil {
		r.actions = append(r.actions, action{Group: g, Step: i, Desk: d.idx, Label: s.New, Kind: Replace, Result: "made, replacing " + r.labels[s.Label].Name})
	}
	r.mu.Unlock()
	return out
}

// undo undoes the desk's redemption of a label; past the window, the desk's
// clock is set ahead by the window (and a minute) for the step.
func (r *run) undo(ctx context.Context, g, i int, d *desk, s Step) (string, error) {
	lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	set, err := d.db.LoadSettings(lctx)
	if err != nil {
		return "", err
	}
	if s.Outside {
		d.extra.Store(int64(set.UndoWindow + time.Minute))
		defer d.extra.Store(0)
	}
	rec := undoRecord{Group: g, Desk: d.idx, Label: s.Label, Outside: s.Outside, Since: d.svc.Now().Add(-set.UndoWindow).Unix()}
	// The desk's own standing redemption, read before the undo (no other
	// step of this desk runs in the group).
	// An online redemption (the server decided it) is stored at the
	// server's time, and its window is judged on the server's clock: here
	// the real one, less 2 seconds for the desk's measurement of it.
	var online bool
	err = d.db.SQL().QueryRowContext(lctx, `SELECT r.redeemed_at,
		EXISTS (SELECT 1 FROM outbox o WHERE o.event_id = r.trace_id AND o.kind = 'redeem' AND o.offline = 0)
		FROM redemptions r JOIN codes c ON c.id = r.code_id
		WHERE c.code = ? AND r.undone_at = 0 AND r.station = ? ORDER BY r.id DESC LIMIT 1`, r.labels[s.Label].Code, d.name).Scan(&rec.RedeemedAt, &online)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("desk %s redemptions: %w", deskName(d.idx), err)
	}
	if online {
		rec.Since = time.Now().Add(-set.UndoWindow).Unix() - 2
	}
	rec.Within = rec.RedeemedAt != 0 && rec.RedeemedAt >= rec.Since
	u, err := d.svc.UndoRedemption(lctx, app.UndoRequest{Code: r.labels[s.Label].Code, Reason: "wrong parcel", Operator: "supervisor " + deskName(d.idx)})
	out := "refused: "
	if err != nil {
		out += app.ErrorMessage(err)
	} else {
		rec.Accepted, rec.EventID, rec.Server, rec.Undoes = true, u.EventID, u.Server, u.Undoes
		out = "undone (server: " + orNone(u.Server) + ", event " + u.EventID + ")"
	}
	r.mu.Lock()
	r.undos = append(r.undos, rec)
	r.actions = append(r.actions, action{Group: g, Step: i, Desk: d.idx, Label: s.Label, Kind: Undo, Result: out})
	r.mu.Unlock()
	return out, nil
}

// restore notes the redemptions the server holds, restores backup
// s.Backup, and sets every desk's token as it stands (the backup has the
// tokens of its time; the planner keeps token steps out of this group).
func (r *run) restore(ctx context.Context, g int, s Step) (string, error) {
	held, err := r.srv.acknowledged(ctx)
	if err != nil {
		return "", fmt.Errorf("server redemptions before the restore: %w", err)
	}
	if err := r.srv.restore(ctx, s.Backup); err != nil {
		return "", fmt.Errorf("server restore: %w", err)
	}
	for _, d := range r.desks {
		if err := r.srv.setToken(ctx, d.serverName, deskName(d.idx), d.site, d.token, d.revoked.Load()); err != nil {
			return "", fmt.Errorf("desk %s's token after the restore: %w", deskName(d.idx), err)
		}
	}
	after, err := r.srv.acknowledged(ctx)
	if err != nil {
		return "", err
	}
	lost := 0
	for id := range held {
		if !after[id] {
			lost++
		}
	}
	r.mu.Lock()
	r.restores = append(r.restores, restoreRecord{Group: g, Backup: s.Backup, Held: held})
	r.mu.Unlock()
	return fmt.Sprintf("ok (the server held %d redemptions, %d of them not in the backup)", len(held), lost), nil
}

func (r *run) scan(ctx context.Context, g, i int, d *desk, l int) string {
	lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	t0, revoked, mode := time.Now(), d.revoked.Load(), d.proxy.currentMode()
	v, err := d.svc.Redeem(lctx, r.labels[l].Code, "clerk "+deskName(d.idx))
	rec := verdict{Desk: d.idx, Group: g, Step: i, Label: l, Outcome: v.Outcome, TraceID: v.TraceID, Reason: v.Reason,
		At: d.svc.Now().Unix(), Took: time.Since(t0), Revoked: revoked, Network: mode, Began: t0, Skew: time.Duration(d.skew.Load()),
		LocalRefusal: v.Record != nil, // only the desk's own lookup fills Record
		Order:        v.Order}
	out := string(v.Outcome)
	if err != nil {
		rec.Err = oneLine(err)
		out = "error: " + rec.Err
	}
	r.mu.Lock()
	r.verdicts = append(r.verdicts, rec)
	r.actions = append(r.actions, action{Group: g, Step: i, Desk: d.idx, Label: l, Kind: Scan, Result: out})
	r.mu.Unlock()
	return fmt.Sprintf("%s (trace %s, %v)", out, v.TraceID, rec.Took.Round(time.Millisecond))
}

// heal ends every fault: the network passes, revoked desks get a working
// token, and every desk syncs in rounds until the desks are quiet: at least
// twice (the second round brings each desk the conflicts that the others'
// uploads caused in the first), and again while a round ends with the desks
// at different feed positions or the feed grew during it. An event of a
// label another desk issued offline waits ("unknown") until that desk has
// uploaded it: if the issuing desk syncs later in the round, the event goes
// in the next round and its conflict reaches the desks that synced before
// it only in the round after (heal used to stop at two rounds, and I3 found
// desks that had simply not synced since).
func (r *run) heal(ctx context.Context) error {
	for _, d := range r.desks {
		d.proxy.setMode(Mode{Kind: Pass})
	}
	for _, d := range r.desks {
		if !d.proxy.settle(10 * time.Second) {
			r.log = append(r.log, fmt.Sprintf("heal: desk %s's proxy still has requests at the server after 10s", deskName(d.idx)))
		}
	}
	for _, d := range r.desks {
		if d.revoked.Load() {
			if err := d.newToken(ctx, r.srv); err != nil {
				return err
			}
			r.log = append(r.log, fmt.Sprintf("heal: desk %s gets a new token (station %s)", deskName(d.idx), d.serverName))
		}
	}
	var head int64 // the highest feed position a desk reached in the last round
	for round := 1; round <= healRounds; round++ {
		time.Sleep(r.cfg.SyncInterval)
		low, high := int64(-1), int64(0)
		for _, d := range r.desks {
			sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
			st, err := d.svc.Sync(sctx)
			cancel()
			out := fmt.Sprintf("ok (cursor %d, %d waiting, %d rejected)", st.Cursor, st.Waiting, st.Rejected)
			if err != nil {
				out = "failed: " + oneLine(err)
				r.unhealed = append(r.unhealed, fmt.Sprintf("desk %s, round %d: %s", deskName(d.idx), round, oneLine(err)))
			}
			r.log = append(r.log, fmt.Sprintf("heal: sync round %d, desk %s → %s", round, deskName(d.idx), out))
			if err == nil {
				if low < 0 || st.Cursor < low {
					low = st.Cursor
				}
				high = max(high, st.Cursor)
			}
		}
		quiet := low == high && high == head
		head = high
		if round >= 2 && quiet {
			break
		}
	}
	return nil
}

// healRounds bounds heal's sync rounds (a desk whose sync fails every time
// would keep it going; r.unhealed reports it).
const healRounds = 6

func (r *run) stats(took time.Duration) string {
	outcomes := map[app.Outcome]int{}
	for _, v := range r.verdicts {
		outcomes[v.Outcome]++
	}
	var ps proxyStats
	for _, d := range r.desks {
		s := &d.proxy.stats
		ps.Forwarded.Add(s.Forwarded.Load())
		ps.Delayed.Add(s.Delayed.Load())
		ps.DroppedRequests.Add(s.DroppedRequests.Load())
		ps.DroppedAnswers.Add(s.DroppedAnswers.Load())
		ps.Duplicated.Add(s.Duplicated.Load())
		ps.Refused.Add(s.Refused.Load())
		ps.ServerDown.Add(s.ServerDown.Load())
	}
	steps := 0
	for _, g := range r.plan.Groups {
		steps += len(g)
	}
	made, undone := 0, 0
	for _, l := range r.labels[len(r.labels)-r.plan.Replacements:] {
		if l.Code != "" {
			made++
		}
	}
	for _, u := range r.undos {
		if u.Accepted {
			undone++
		}
	}
	actions := fmt.Sprintf("%d/%d replacements made, %d/%d undos done, %d day closes (%d labels expired), %d backups, %d restores, ",
		made, r.plan.Replacements, undone, len(r.undos), r.closes, r.closeExp, len(r.srv.backups), r.srv.restores) + r.clocks.String() + r.orderStats()
	return fmt.Sprintf("%d desks, %d labels, %d groups / %d steps, %d scans (%d redeemed, %d already used, %d disabled, %d expired), "+actions+"%d server restarts; "+
		"network: %d forwarded, %d delayed, %d requests dropped, %d answers dropped, %d duplicated, %d refused, %d while the server was down; %v",
		len(r.desks), len(r.labels), len(r.plan.Groups), steps, len(r.verdicts), outcomes[app.OutcomeRedeemed], outcomes[app.OutcomeAlreadyUsed],
		outcomes[app.OutcomeDisabled], outcomes[app.OutcomeExpired], r.srv.restarts,
		ps.Forwarded.Load(), ps.Delayed.Load(), ps.DroppedRequests.Load(), ps.DroppedAnswers.Load(), ps.Duplicated.Load(), ps.Refused.Load(), ps.ServerDown.Load(),
		took.Round(10*time.Millisecond))
}

func oneLine(err error) string { return strings.ReplaceAll(err.Error(), "\n", " ") }
