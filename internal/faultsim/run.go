package faultsim

import (
	"context"
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
	// pause before each of the two final sync rounds (a desk syncs every 5 s;
	// a server may take a moment to publish a commit in its feed).
	OnlineTimeout, OfflineFor, SyncTimeout, SyncInterval time.Duration
	// Off switches fault classes off (see FaultClasses), to look past a
	// known bug; it changes the schedule a seed draws.
	Off []string
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

// label is one code of the universe: every desk's batch.
type label struct {
	Name, Code string
	Desk       int
	ExpireAt   int64
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
	log      []string
	unhealed []string
}

// Run sets up a server and cfg.Desks desks, runs the schedule of cfg.Seed
// through the fault proxies, brings everything back to health, syncs every
// desk twice and checks the invariants. An error is a failure of the
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
		if d.idx == 2 {
			req.Expires = "90m" // expiry meets the clock skew at this desk's labels
		}
		_, codes, err := d.svc.Issue(ctx, req)
		if err != nil {
			return fmt.Errorf("desk %s issue: %w", deskName(d.idx), err)
		}
		for _, c := range codes {
			rec, err := d.db.Lookup(ctx, c)
			if err != nil {
				return err
			}
			n := len(r.labels)
			r.labels = append(r.labels, label{Name: labelName(n, r.cfg.CodesPerDesk), Code: c.String(), Desk: d.idx, ExpireAt: rec.ExpireAt})
			r.byCode[c.String()] = n
		}
		if _, err := d.svc.Sync(ctx); err != nil {
			return fmt.Errorf("desk %s first sync: %w", deskName(d.idx), err)
		}
	}
	return nil
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
	case Scan:
		return r.scan(ctx, g, i, d, s.Label), nil
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
	}
	return "", fmt.Errorf("unknown step kind %d", s.Kind)
}

func (r *run) scan(ctx context.Context, g, i int, d *desk, l int) string {
	lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	t0, revoked, mode := time.Now(), d.revoked.Load(), d.proxy.currentMode()
	v, err := d.svc.Redeem(lctx, r.labels[l].Code, "clerk "+deskName(d.idx))
	rec := verdict{Desk: d.idx, Group: g, Step: i, Label: l, Outcome: v.Outcome, TraceID: v.TraceID, Reason: v.Reason,
		At: d.svc.Now().Unix(), Took: time.Since(t0), Revoked: revoked, Network: mode,
		LocalRefusal: v.Record != nil} // only the desk's own lookup fills Record
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
// token, and every desk syncs twice (the second round brings each desk the
// conflicts that the others' uploads caused in the first).
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
	for round := 1; round <= 2; round++ {
		time.Sleep(r.cfg.SyncInterval)
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
		}
	}
	return nil
}

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
	return fmt.Sprintf("%d desks, %d labels, %d groups / %d steps, %d scans (%d redeemed, %d already used, %d disabled, %d expired), %d server restarts; "+
		"network: %d forwarded, %d delayed, %d requests dropped, %d answers dropped, %d duplicated, %d refused, %d while the server was down; %v",
		len(r.desks), len(r.labels), len(r.plan.Groups), steps, len(r.verdicts), outcomes[app.OutcomeRedeemed], outcomes[app.OutcomeAlreadyUsed],
		outcomes[app.OutcomeDisabled], outcomes[app.OutcomeExpired], r.srv.restarts,
		ps.Forwarded.Load(), ps.Delayed.Load(), ps.DroppedRequests.Load(), ps.DroppedAnswers.Load(), ps.Duplicated.Load(), ps.Refused.Load(), ps.ServerDown.Load(),
		took.Round(10*time.Millisecond))
}

func oneLine(err error) string { return strings.ReplaceAll(err.Error(), "\n", " ") }
