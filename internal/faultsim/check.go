package faultsim

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"qrdesk/app"
	"qrdesk/protocol"
)

// The invariants, checked on the server's database and every desk's after
// the faults end and every desk synced until the desks were quiet (heal).
const (
	// InvOneUse: for every label, the clerks told "redeemed" are at most one
	// more than the conflicts the server recorded for it.
	InvOneUse = "I1 one use, or a conflict"
	// InvDelivered: every outbox event of every desk is on the server
	// (event_id is UNIQUE there, so at most once), none is still pending,
	// and every "redeemed" the server decided online is on the server. An
	// event the server refused is not sent again after a restore that lost
	// the server's record of it (it changed nothing; decided anew, it could
	// do what the clerk was told was refused); an online redemption a
	// restore lost is sent again, and may become a conflict.
	InvDelivered = "I2 every event on the server once"
	// InvConverged: every desk has every label in the server's state (used,
	// disabled, or unused/expired alike: expiry is a matter of whose clock)
	// and knows every conflict the server recorded.
	InvConverged = "I3 desks converge"
	// InvNoPhantom: every redemption the server holds was told to a clerk
	// as "redeemed" (a server redemption nobody saw blocks a label nobody
	// used, and its conflict blames a desk that refused the label).
	InvNoPhantom = "I4 no redemption nobody was told"
	// InvUndoWindow: a desk undoes only its own standing redemption made
	// within the undo window by its clock (an online redemption's by the
	// server's: it is stored at the server's time); past the window it
	// refuses.
	InvUndoWindow = "I5 no undo past the window"
	// InvNotLost: every redemption the server held when it was restored
	// from a backup (answered online, or uploaded and acknowledged) is on
	// the server again after convergence, redeemed or a conflict.
	InvNotLost = "I6 no acknowledged redemption lost across a restore"
	// InvDayFigures: once synced, a desk's own figures (issued, and
	// redeemed less undone) equal the dashboard's row for it (redeemed
	// plus conflicts), over the days of the run (unless
	// Config.SkipDayFigures).
	InvDayFigures = "I7 a desk's own day figures equal the server's row"
	// InvExpiryFlagged: an offline redemption the server took (outcome
	// redeemed) of a label past its expiry by the server's clock when the
	// clerk scanned it (by more than clockSlack) is flagged.
	InvExpiryFlagged = "I8 no redemption after expiry unflagged"
	// InvConflictDay: a conflict is filed at the true time of its
	// redemption of record (within clockSlack), so on the right day, unless
	// the server set that desk's time aside with a flag (then at the time
	// it received it); a desk's clock, behind or ahead, never files it
	// elsewhere.
	InvConflictDay = "I9 conflicts filed on the right day"
)

// Invariants lists them in order.
var Invariants = []string{InvOneUse, InvDelivered, InvConverged, InvNoPhantom, InvUndoWindow, InvNotLost, InvDayFigures, InvExpiryFlagged, InvConflictDay}

// Violation is one broken invariant about one label.
type Violation struct {
	Invariant string
	Label     int
	What      string
}

// checker holds what the invariants are checked against, indexed.
type checker struct {
	r         *run
	server    serverState
	desks     []deskState
	events    map[string]serverEvent      // by event id
	byCode    map[string][]serverEvent    // server events by code
	conflicts map[string][]serverConflict // server conflicts by code
	outbox    []map[string]outboxEvent    // per desk, by event id
	traces    map[string]verdict          // verdicts by trace id
	stations  map[string]int              // server station name → desk
	undone    map[string]undoRecord       // undos the desks made, by the redemption undone

	topo topology // sites and staff (topocheck.go)

	violations []Violation
	notes      []string
}

func (r *run) check(ctx context.Context, res *Result) error {
	c := &checker{r: r, events: map[string]serverEvent{}, byCode: map[string][]serverEvent{},
		conflicts: map[string][]serverConflict{}, traces: map[string]verdict{}, stations: map[string]int{}}
	var err error
	if c.server, err = r.srv.readServer(ctx); err != nil {
		return err
	}
	for _, e := range c.server.Events {
		c.events[e.EventID] = e
		c.byCode[e.Code] = append(c.byCode[e.Code], e)
	}
	for _, k := range c.server.Conflicts {
		c.conflicts[k.Code] = append(c.conflicts[k.Code], k)
	}
	for _, d := range r.desks {
		st, err := d.read(ctx)
		if err != nil {
			return err
		}
		c.desks = append(c.desks, st)
		ob := map[string]outboxEvent{}
		for _, e := range st.Outbox {
			ob[e.EventID] = e
		}
		c.outbox = append(c.outbox, ob)
		for _, name := range d.stations {
			c.stations[name] = d.idx
		}
	}
	for _, v := range r.verdicts {
		c.traces[v.TraceID] = v
	}
	if err := c.readTopology(ctx); err != nil {
		return err
	}
	c.undone = map[string]undoRecord{}
	for _, u := range r.undos {
		if u.Accepted {
			c.undone[u.Undoes] = u
		}
	}
	c.oneUse()
	c.delivered()
	c.converged()
	c.noPhantom()
	c.undoWindow()
	c.notLost()
	c.expiryFlagged()
	c.conflictDay()
	if !r.cfg.SkipDayFigures {
		if err := c.dayFigures(ctx); err != nil {
			return err
		}
	}
	c.topologyInvariants()
	if r.cfg.on(TopoOrders) {
		if err := c.orders(ctx); err != nil {
			return err
		}
	}
	if err := c.webhooks(ctx); err != nil {
		return err
	}
	// By invariant, then label; facts about no one label (a desk that lacks
	// many) last.
	last := func(l int) int {
		if l < 0 {
			return len(c.r.labels)
		}
		return l
	}
	slices.SortStableFunc(c.violations, func(a, b Violation) int {
		return cmp.Or(cmp.Compare(slices.Index(Invariants, a.Invariant), slices.Index(Invariants, b.Invariant)), cmp.Compare(last(a.Label), last(b.Label)))
	})
	res.Violations, res.Notes = c.violations, c.notes
	res.report = c.facts()
	return nil
}

func (c *checker) fail(inv string, label int, format string, args ...any) {
	c.violations = append(c.violations, Violation{Invariant: inv, Label: label, What: fmt.Sprintf(format, args...)})
}

// codeName is a label's name in the run (A04, R01), or the code.
func (c *checker) codeName(code string) string {
	if l := c.label(code); l >= 0 {
		return c.name(l)
	}
	return code
}

func (c *checker) label(code string) int {
	if l, ok := c.r.byCode[code]; ok {
		return l
	}
	return -1
}

// atDesk reports whether desk d decided the scan with this trace itself
// (its outbox carries the event as decided there) rather than the server
// online (the outbox keeps those too, offline 0, for a restore).
func (c *checker) atDesk(v verdict) bool {
	e, ok := c.outbox[v.Desk][v.TraceID]
	return ok && e.Offline
}

// root is the first label of l's entitlement (l, if it replaces none).
func (c *checker) root(l int) int {
	for c.r.labels[l].Of >= 0 {
		l = c.r.labels[l].Of
	}
	return l
}

// oneUse: per entitlement (a label and its replacements), the clerks told
// "redeemed", less the redemptions the server undid, are at most one more
// than the conflicts the server recorded on its labels.
func (c *checker) oneUse() {
	members := map[int][]int{} // root → labels
	for l, lab := range c.r.labels {
		if lab.Code != "" {
			members[c.root(l)] = append(members[c.root(l)], l)
		}
	}
	redeemed := map[int][]verdict{} // by root
	for _, v := range c.r.verdicts {
		if rs, lost := c.lostByDeskRestore(v); lost && v.Outcome == app.OutcomeRedeemed {
			// Decided at the desk and gone with its database before it
			// reached the server: nobody can know of it (a note).
			c.notes = append(c.notes, fmt.Sprintf("desk %s's redemption of %s (trace %s) never reached the server: its database was restored at g%02d", deskName(v.Desk), c.name(v.Label), v.TraceID, rs.Group+1))
			continue
		}
		if v.Outcome == app.OutcomeRedeemed {
			redeemed[c.root(v.Label)] = append(redeemed[c.root(v.Label)], v)
		}
	}
	for root, labels := range members {
		k, undone := 0, 0
		var names []string
		for _, l := range labels {
			code := c.r.labels[l].Code
			names = append(names, c.r.labels[l].Name)
			k += len(c.conflicts[code])
			for _, e := range c.byCode[code] {
				if e.Kind == protocol.KindUndo && e.Outcome == protocol.OutcomeUndone {
					undone++
				}
			}
		}
		// An undo the desk made of a redemption the server no longer has
		// (a restore lost both): that parcel came back too.
		for _, u := range c.r.undos {
			if _, onServer := c.events[u.Undoes]; u.Accepted && !onServer && slices.Contains(labels, u.Label) {
				undone++
			}
		}
		told := redeemed[root]
		if len(told)-undone > 1+k {
			var at []string
			for _, v := range told {
				at = append(at, fmt.Sprintf("desk %s (%s)", deskName(v.Desk), c.r.labels[v.Label].Name))
			}
			what := "label"
			if len(labels) > 1 {
				what = "entitlement " + strings.Join(names, "+")
			}
			c.fail(InvOneUse, root, "%s: %d clerks were told \"redeemed\" (%s), the server undid %d; the server recorded %d conflicts", what, len(told), strings.Join(at, ", "), undone, k)
		}
	}
}

// recordedRefusal reports whether an outbox answer is the server's
// refusal as it recorded it (a write number), not the desk's marking of an
// event whose request the server refused unread.
func recordedRefusal(result string) bool {
	var r protocol.Result
	return json.Unmarshal([]byte(result), &r) == nil && r.Outcome == protocol.OutcomeRejected && r.Write > 0
}

func (c *checker) delivered() {
	for d, st := range c.desks {
		for _, e := range st.Outbox {
			l := c.label(e.Code)
			_, onServer := c.events[e.EventID]
			switch {
			case e.State == "pending":
				c.fail(InvDelivered, l, "desk %s's %s event %s is still pending after two syncs (last answer %s)", deskName(d), e.Kind, e.EventID, orNone(e.Result))
			case !onServer && e.State == "rejected" && recordedRefusal(e.Result) && len(c.r.restores) > 0:
				// The server refused it and recorded the refusal; a restore
				// lost the record. A refused event changed nothing, and is
				// not sent again: decided anew on the restored server, it
				// could do what the clerk was told was refused.
				c.notes = append(c.notes, fmt.Sprintf("desk %s's %s of %s (event %s) was refused (%s); a restore lost the server's record of the refusal", deskName(d), e.Kind, c.name(l), e.EventID, resultReason(e.Result)))
			case !onServer:
				c.fail(InvDelivered, l, "desk %s's %s event %s is marked %s (%s) but the server never recorded it", deskName(d), e.Kind, e.EventID, e.State, orNone(e.Result))
			case e.State == "rejected":
				c.notes = append(c.notes, fmt.Sprintf("desk %s's %s of %s (event %s) was rejected: %s", deskName(d), e.Kind, c.name(l), e.EventID, resultReason(e.Result)))
			}
		}
	}
	for _, v := range c.r.verdicts {
		if v.Outcome == app.OutcomeRedeemed && c.atDesk(v) && v.Revoked {
			c.notes = append(c.notes, fmt.Sprintf("desk %s redeemed %s by itself while its token was revoked (network: %s; trace %s)", deskName(v.Desk), c.name(v.Label), v.Network, v.TraceID))
		}
		if v.Outcome != app.OutcomeRedeemed || c.atDesk(v) {
			continue
		}
		if rs, lost := c.lostByDeskRestore(v); lost {
			c.notes = append(c.notes, fmt.Sprintf("desk %s's redemption of %s (trace %s) went with its database, restored at g%02d", deskName(v.Desk), c.name(v.Label), v.TraceID, rs.Group+1))
			continue
		}
		e, ok := c.events[v.TraceID]
		if _, undone := c.undone[v.TraceID]; undone && !ok && len(c.r.restores) > 0 {
			continue // a restore lost it and its undo (a note of notLost says so)
		}
		switch {
		case !ok:
			c.fail(InvDelivered, v.Label, "desk %s told a clerk \"redeemed\" online (trace %s) but the server has no such event", deskName(v.Desk), v.TraceID)
		case e.Outcome == protocol.OutcomeConflict && e.Offline && len(c.r.restores) > 0:
			// A restore lost it; the desk sent it again as its fact, and
			// the restored server found the label used by then (or used
			// first elsewhere): a conflict, which I1 counts.
			c.notes = append(c.notes, fmt.Sprintf("desk %s's online redemption of %s (trace %s), lost by a restore and sent again, is a conflict", deskName(v.Desk), c.name(v.Label), v.TraceID))
		case e.Outcome != protocol.OutcomeRedeemed:
			c.fail(InvDelivered, v.Label, "desk %s told a clerk \"redeemed\" online (trace %s) but the server recorded %s", deskName(v.Desk), v.TraceID, e.Outcome)
		}
	}
}

// class is a status as the invariants compare it: for a label with an
// expiry time, unused and expired differ only by whose clock says so; a
// label without one expires only by a close of the day, which every desk
// and the server must then agree on.
func class(status string, expireAt int64) string {
	if expireAt != 0 && (status == "unused" || status == "expired") {
		return "unused/expired"
	}
	return status
}

func (c *checker) converged() {
	unknown := make([][]string, len(c.desks)) // labels each desk does not know
	expiredApart := map[string][]string{}     // expired at one side only, by desk and statuses
	var expiredKeys []string
	for l, lab := range c.r.labels {
		if lab.Code == "" {
			continue
		}
		sc, ok := c.server.Codes[lab.Code]
		if !ok {
			c.fail(InvConverged, l, "the server does not know the label")
			continue
		}
		var differ []string
		for d, st := range c.desks {
			dc, ok := st.Codes[lab.Code]
			switch {
			case !c.mustHold(d, lab.Code):
				// Another site's label: its copy, if the desk holds one,
				// is I10's.
			case !ok:
				unknown[d] = append(unknown[d], lab.Name)
			case lab.ExpireAt == 0 && class(dc.Status, 0) != class(sc.Status, 0) && (dc.Status == "expired" || sc.Status == "expired"):
				// A close of the day that stayed at one place: one line per
				// desk and pair of statuses, not one per label.
				k := fmt.Sprintf("desk %s has %%d labels %s that the server has %s: %%s", deskName(d), dc.Status, sc.Status)
				if expiredApart[k] == nil {
					expiredKeys = append(expiredKeys, k)
				}
				expiredApart[k] = append(expiredApart[k], lab.Name)
			case class(dc.Status, lab.ExpireAt) != class(sc.Status, lab.ExpireAt):
				differ = append(differ, fmt.Sprintf("desk %s has it %s", deskName(d), dc.Status))
			}
		}
		if len(differ) > 0 {
			c.fail(InvConverged, l, "the server has it %s; %s", sc.Status, strings.Join(differ, ", "))
		}
		for _, k := range c.conflicts[lab.Code] {
			var missing []string
			for d, st := range c.desks {
				if !c.mustHold(d, lab.Code) {
					continue // I11 asks the desks and sites that took part
				}
				if dk, ok := st.Conflicts[k.SecondEvent]; !ok || dk.FirstEvent != k.FirstEvent || dk.Code != k.Code {
					missing = append(missing, deskName(d))
				}
			}
			if len(missing) > 0 {
				c.fail(InvConverged, l, "desks %s do not know the server's conflict %s/%s", strings.Join(missing, ", "), k.FirstEvent, k.SecondEvent)
			}
		}
	}
	for _, k := range expiredKeys {
		c.fail(InvConverged, -1, k, len(expiredApart[k]), strings.Join(expiredApart[k], " "))
	}
	for d, names := range unknown {
		if len(names) > 0 {
			c.fail(InvConverged, -1, "desk %s does not know %d labels: %s", deskName(d), len(names), strings.Join(names, " "))
		}
	}
	for d, st := range c.desks {
		for id, k := range st.Conflicts {
			if !slices.ContainsFunc(c.conflicts[k.Code], func(s serverConflict) bool { return s.SecondEvent == id }) {
				c.fail(InvConverged, c.label(k.Code), "desk %s lists a conflict %s/%s the server does not have", deskName(d), k.FirstEvent, id)
			}
		}
	}
}

func (c *checker) noPhantom() {
	for _, e := range c.server.Events {
		if e.Kind != protocol.KindRedeem || (e.Outcome != protocol.OutcomeRedeemed && e.Outcome != protocol.OutcomeConflict) {
			continue
		}
		v, ok := c.traces[e.EventID]
		switch {
		case !ok:
			c.fail(InvNoPhantom, c.label(e.Code), "the server holds redemption %s by %s (%s) but no scan had that trace id", e.EventID, e.Station, e.Outcome)
		case v.Outcome != app.OutcomeRedeemed:
			c.fail(InvNoPhantom, v.Label, "the server holds redemption %s by %s (%s), but desk %s told its clerk %q", e.EventID, e.Station, e.Outcome, deskName(v.Desk), orNone(string(v.Outcome)+v.Err))
		}
	}
}

// undoWindow: an undo the desk accepted had its own standing redemption
// within the window by its clock (read just before).
func (c *checker) undoWindow() {
	for _, u := range c.r.undos {
		if !u.Accepted || u.Within {
			continue
		}
		why := "no standing redemption of its own"
		if u.RedeemedAt != 0 {
			why = fmt.Sprintf("its redemption at %s, before the window's start %s", clock(u.RedeemedAt), clock(u.Since))
		}
		c.fail(InvUndoWindow, u.Label, "desk %s undid it at g%02d (event %s, server: %s) with %s", deskName(u.Desk), u.Group+1, u.EventID, orNone(u.Server), why)
	}
}

// notLost: every redemption the server held before a restore is there
// after convergence, redeemed or a conflict.
//
// It counts every redemption the server held, not only those a desk was
// told were redeemed. The server answers a request it decided with that
// decision whenever it comes again (also after a revocation), and a desk
// that got no answer decides alone under the same event id: a redemption
// the server holds is meant to be one its desk holds too, and sends again
// after the restore. One the server holds that its desk was told was
// refused is a handover that never happened kept as one (another desk's
// customer is refused "already used"): a fault of its own, which only a
// restore's loss of it brings to light here; counting acknowledged ones
// only would hide it.
func (c *checker) notLost() {
	seen := map[string]bool{}
	for _, rs := range c.r.restores {
		for _, id := range slices.Sorted(maps.Keys(rs.Held)) {
			if seen[id] {
				continue
			}
			seen[id] = true
			if u, ok := c.undone[id]; ok {
				if _, onServer := c.events[id]; !onServer {
					c.notes = append(c.notes, fmt.Sprintf("the restore from backup %d at g%02d lost desk %s's redemption %s of %s, which the desk had undone (undo %s, then %s)",
						rs.Backup, rs.Group+1, deskName(u.Desk), id, c.name(u.Label), u.EventID, orNone(string(c.events[u.EventID].Outcome))))
				}
				continue // an undone redemption is no longer one to keep
			}
			e, ok := c.events[id]
			l := -1
			if v, ok := c.traces[id]; ok {
				l = v.Label
			}
			switch {
			case !ok:
				c.fail(InvNotLost, l, "the server held redemption %s before the restore from backup %d at g%02d; after convergence it has no such event", id, rs.Backup, rs.Group+1)
			case e.Outcome != protocol.OutcomeRedeemed && e.Outcome != protocol.OutcomeConflict:
				c.fail(InvNotLost, l, "the server held redemption %s before the restore from backup %d at g%02d; after convergence it is %s", id, rs.Backup, rs.Group+1, e.Outcome)
			}
		}
	}
}

// dayFigures: each desk's own figures over the days of the run equal the
// dashboard's row for it.
func (c *checker) dayFigures(ctx context.Context) error {
	now := time.Now()
	from, to := now.AddDate(0, 0, -3).Unix(), now.AddDate(0, 0, 3).Unix()
	rows, err := c.r.srv.dayRows(ctx, from, to)
	if err != nil {
		return fmt.Errorf("the dashboard's day: %w", err)
	}
	for _, d := range c.r.desks {
		own, err := d.ownFigures(ctx, from, to)
		if err != nil {
			return err
		}
		srv := rows[d.name]
		if own != srv {
			apart, l := c.redeemedApart(ctx, d)
			c.fail(InvDayFigures, l, "desk %s counts issued %d, redeemed %d, conflicts %d; the dashboard's row says issued %d, redeemed %d, conflicts %d%s",
				deskName(d.idx), own.Issued, own.Redeemed, own.Conflicts, srv.Issued, srv.Redeemed, srv.Conflicts, apart)
		}
	}
	return nil
}

func (c *checker) name(l int) string {
	if l < 0 {
		return "(no label)"
	}
	return c.r.labels[l].Name
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func resultReason(result string) string {
	var r protocol.Result
	if json.Unmarshal([]byte(result), &r) == nil && r.Reason != "" {
		return r.Reason
	}
	return orNone(result)
}

func clock(unix int64) string {
	if unix == 0 {
		return "-"
	}
	return time.Unix(unix, 0).Format("01-02 15:04:05")
}

// facts writes, for every label an invariant broke on, everything known
// about it: what the clerks did and were told, the server's events,
// conflicts and state, and every desk's state and outbox events.
func (c *checker) facts() string {
	var b strings.Builder
	seen := map[int]bool{}
	shown := 0
	for _, v := range c.violations {
		if seen[v.Label] {
			continue
		}
		seen[v.Label] = true
		if shown++; shown > 25 {
			fmt.Fprintf(&b, "(facts of further labels left out)\n")
			break
		}
		if v.Label < 0 {
			continue
		}
		c.labelFacts(&b, v.Label)
	}
	return b.String()
}

func (c *checker) labelFacts(b *strings.Builder, l int) {
	lab := c.r.labels[l]
	exp := "never expires"
	if lab.ExpireAt != 0 {
		exp = "expires " + clock(lab.ExpireAt)
	}
	fmt.Fprintf(b, "facts of %s (%s, issued at desk %s, %s):\n", lab.Name, lab.Code, deskName(lab.Desk), exp)
	if lab.Code == "" {
		return
	}
	var ent []string
	for m, other := range c.r.labels {
		if m != l && other.Code != "" && c.root(m) == c.root(l) {
			ent = append(ent, other.Name+" "+other.Code)
		}
	}
	if len(ent) > 0 {
		fmt.Fprintf(b, "  one entitlement with %s\n", strings.Join(ent, ", "))
	}
	actions := slices.Clone(c.r.actions)
	slices.SortFunc(actions, func(a, b action) int { return cmp.Or(cmp.Compare(a.Group, b.Group), cmp.Compare(a.Step, b.Step)) })
	for _, a := range actions {
		if a.Label != l {
			continue
		}
		verb := map[StepKind]string{Scan: "scans", Disable: "disables", Enable: "enables", Replace: "replaces", Undo: "undoes", IssueMore: "issues", ImportOrder: "imports"}[a.Kind]
		if a.Kind == Replace && lab.Of >= 0 && a.Label == l && strings.HasPrefix(a.Result, "made") {
			verb = "replacement"
		}
		line := fmt.Sprintf("  g%02d.%d desk %s %s → %s", a.Group+1, a.Step+1, deskName(a.Desk), verb, a.Result)
		if a.Kind == Scan {
			for _, v := range c.r.verdicts {
				if v.Group == a.Group && v.Step == a.Step {
					line += c.verdictFacts(v)
				}
			}
		}
		fmt.Fprintln(b, line)
	}
	if sc, ok := c.server.Codes[lab.Code]; ok {
		fmt.Fprintf(b, "  server: %s", sc.Status)
		if sc.Status == "used" {
			fmt.Fprintf(b, " by %s at %s (event %s)", sc.UsedStation, clock(sc.UsedAt), sc.UsedEvent)
		}
		fmt.Fprintln(b)
	}
	for _, e := range c.byCode[lab.Code] {
		mode := "online"
		if e.Offline {
			mode = "uploaded"
		}
		fmt.Fprintf(b, "  server event %s: %s by %s, %s, at %s (received %s) → %s\n", e.EventID, e.Kind, e.Station, mode, clock(e.At), clock(e.ReceivedAt), e.Outcome)
	}
	for _, ch := range c.server.Feed[lab.Code] {
		fmt.Fprintf(b, "  server feed %s\n", ch)
	}
	for _, k := range c.conflicts[lab.Code] {
		fmt.Fprintf(b, "  server conflict: first %s by %s at %s, second %s by %s at %s\n", k.FirstEvent, k.FirstStation, clock(k.FirstAt), k.SecondEvent, k.SecondStation, clock(k.SecondAt))
	}
	if len(c.conflicts[lab.Code]) == 0 {
		fmt.Fprintln(b, "  server conflicts: none")
	}
	c.deskFacts(b, lab.Code)
}

// deskFacts are each desk's copy of a label: its status, its redemption
// and undo rows, and its outbox events on it.
func (c *checker) deskFacts(b *strings.Builder, code string) {
	var states []string
	for d, st := range c.desks {
		s := "unknown"
		if dc, ok := st.Codes[code]; ok {
			s = dc.Status
		}
		states = append(states, fmt.Sprintf("%s %s", deskName(d), s))
	}
	fmt.Fprintf(b, "  desks: %s\n", strings.Join(states, ", "))
	for d, st := range c.desks {
		for _, row := range st.History[code] {
			fmt.Fprintf(b, "  desk %s %s\n", deskName(d), row)
		}
		for _, e := range st.Outbox {
			if e.Code == code {
				fmt.Fprintf(b, "  desk %s outbox %s: %s at %s, %s, answer %s\n", deskName(d), e.EventID, e.Kind, clock(e.At), e.State, orNone(e.Result))
			}
		}
	}
}

// verdictFacts says where a scan was decided and how it reached the server.
func (c *checker) verdictFacts(v verdict) string {
	s := fmt.Sprintf("; desk clock %s, network %s", clock(v.At), v.Network)
	if v.Revoked {
		s += "; the desk's token was revoked"
	}
	if v.Reason != "" {
		s += fmt.Sprintf("; reason %q", v.Reason)
	}
	e, onServer := c.events[v.TraceID]
	switch {
	case v.LocalRefusal && onServer:
		s += "; decided at the desk, and the server had decided the same event online: " + string(e.Outcome)
	case v.LocalRefusal:
		s += "; decided at the desk"
	case c.atDesk(v) && onServer && !e.Offline:
		s += "; decided at the desk, and the server had already decided the same event online: " + string(e.Outcome)
	case c.atDesk(v) && onServer:
		s += "; decided at the desk, uploaded: " + string(e.Outcome)
	case c.atDesk(v):
		s += "; decided at the desk, not on the server"
	case onServer:
		s += "; decided by the server: " + string(e.Outcome)
	}
	return s
}

// Report is the failure message: the seed, every broken invariant with the
// facts of its label, notes, and the schedule as it ran. replay is the
// command that runs this seed again.
func (r *Result) Report(replay string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "faultsim seed %d on %s: %d invariant violations\n", r.Config.Seed, r.Config.Engine, len(r.Violations))
	if len(r.Config.Off) > 0 {
		fmt.Fprintf(&b, "fault classes off: %s\n", strings.Join(r.Config.Off, ","))
	}
	fmt.Fprintf(&b, "replay: %s\n", replay)
	fmt.Fprintf(&b, "run: %s\n", r.Stats)
	for _, u := range r.Unhealed {
		fmt.Fprintf(&b, "final sync failed: %s\n", u)
	}
	for _, e := range r.Errors {
		fmt.Fprintf(&b, "server error log: %s\n", e)
	}
	fmt.Fprintln(&b)
	for i, v := range r.Violations {
		if i == 60 {
			fmt.Fprintf(&b, "… %d more\n", len(r.Violations)-i)
			break
		}
		name := "-"
		if v.Label >= 0 {
			name = r.Plan.name(v.Label)
		}
		fmt.Fprintf(&b, "[%s] %s: %s\n", v.Invariant, name, v.What)
	}
	fmt.Fprintf(&b, "\n%s", r.report)
	if len(r.Notes) > 0 {
		fmt.Fprintf(&b, "\nnotes:\n")
		for _, n := range r.Notes {
			fmt.Fprintf(&b, "  %s\n", n)
		}
	}
	fmt.Fprintf(&b, "\nthe schedule as it ran:\n")
	for _, l := range r.Log {
		fmt.Fprintf(&b, "  %s\n", l)
	}
	return b.String()
}

// Summary is one line: which invariants broke, on how many labels.
func (r *Result) Summary() string {
	count := map[string]int{}
	for _, v := range r.Violations {
		count[v.Invariant]++
	}
	if len(count) == 0 {
		return "ok"
	}
	var parts []string
	for _, inv := range Invariants {
		if count[inv] > 0 {
			parts = append(parts, fmt.Sprintf("%s ×%d", invID(inv), count[inv]))
		}
	}
	first := r.Violations[0]
	return fmt.Sprintf("%s; first: [%s] %s", strings.Join(parts, ", "), invID(first.Invariant), first.What)
}

// redeemedApart names the redemptions one side counts as the desk's and
// the other does not: the desk's own standing ones, and the server's
// redeemed events of its station no accepted undo names; and the first
// such label, for the facts (-1: none).
func (c *checker) redeemedApart(ctx context.Context, d *desk) (string, int) {
	own, err := d.ownRedemptions(ctx)
	if err != nil {
		return "; " + err.Error(), -1
	}
	first := -1
	note := func(code string) {
		if first < 0 {
			first = c.label(code)
		}
	}
	undone := map[string]bool{}
	for _, e := range c.server.Events {
		if e.Kind == protocol.KindUndo && e.Outcome == protocol.OutcomeUndone {
			undone[e.Undoes] = true
		}
	}
	var b strings.Builder
	for _, e := range c.server.Events {
		if e.Kind == protocol.KindRedeem && e.Outcome == protocol.OutcomeRedeemed && e.Station == d.name && !undone[e.EventID] {
			if _, ok := own[e.EventID]; !ok {
				fmt.Fprintf(&b, "; the server counts %s (%s), the desk does not", e.EventID, c.codeName(e.Code))
				note(e.Code)
			}
			delete(own, e.EventID)
		}
	}
	for id, code := range own {
		fmt.Fprintf(&b, "; the desk counts %s (%s), the server does not", id, c.codeName(code))
		note(code)
	}
	return b.String(), first
}
