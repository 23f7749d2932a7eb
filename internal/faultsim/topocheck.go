package faultsim

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"qrdesk/app"
	qcentral "qrdesk/central"
	"qrdesk/protocol"
)

// The invariants of the topology (issue 33), each checked only when its
// switch is on (Config.Topology, topology.go): they find defects that are
// being fixed, and are switched on in make test as the fixes merge.
const (
	// InvCopies (inv-copies): after convergence every desk's copy of every
	// label it holds equals the server's: the status exactly (a label past
	// its expiry time by the server's clock counts as expired on either
	// side) and the expiry time; a copy of another site's label too (it
	// follows the server, or is dropped). Issue 33 items 6 and 12 (and 2,
	// 3 where a close reaches a desk only).
	InvCopies = "I10 every desk's copy of a label equals the server's"
	// InvConflictSites (inv-conflict-sites): every conflict is listed at
	// the desks that took part (its two stations, wherever they are now)
	// and at every desk of the label's site and of theirs. Item 5.
	InvConflictSites = "I11 a conflict listed at every desk and site that took part"
	// InvCloseScope (inv-close-scope): a day close expires only labels of
	// the closing desk's site and of the day as the server reckons it.
	// Items 2, 3 and 13.
	InvCloseScope = "I12 a close expires only its site's labels of its day"
	// InvSerials (inv-serials): no two labels carry one letter, date and
	// serial. Item 1.
	InvSerials = "I13 no serial issued twice under one letter"
	// InvStaffFlagged (inv-staff): a redemption the server took from a
	// removed operator, scanned after the removal, carries a flag beyond
	// the clock, disabled, expiry and close ones (the typed flag of the
	// fix). Item 8. And a day close by a removed supervisor (a clerk the
	// staff family removed, the operator of its desk's closes), made
	// after the removal, expires nothing at the server: each of its
	// expiries is refused and flagged (FlagRemovedStaff), unless refused
	// before that as made in another site; where a server restore lost
	// the removal for a while, an expiry taken meanwhile is flagged once
	// the removal comes back.
	InvStaffFlagged = "I14 a removed operator's work is flagged, and a removed supervisor's close expires nothing"
	// InvRefusals (inv-refusals): 'qrdesk restore' refuses another desk's
	// backup; a desk whose database file is lost beside its key file is
	// not opened on a new one without a word; a desk restored from its
	// backup refuses to issue until it has synced. Item 1's "what to
	// build". Off, the checker notes each instead.
	InvRefusals = "I15 a wrong backup, a lost database and an unsynced restored desk's issue are refused"
	// InvRehired (checked with the rehire family on): a clerk a desk
	// removed offline, and the administrator removed and added again
	// after that, is on the server's staff list after convergence
	// (removed_at 0) and a current operator at every desk: the desk's
	// late removal was of the earlier record. A server restore to a
	// backup taken before the clerk was added again loses the new record
	// (a note says so).
	InvRehired = "I16 a clerk added again stays on the staff list"
)

func init() {
	Invariants = append(Invariants, InvCopies, InvConflictSites, InvCloseScope, InvSerials, InvStaffFlagged, InvRefusals, InvRehired)
}

// invID is an invariant's number (I1 … I16).
func invID(inv string) string { return strings.Fields(inv)[0] }

// topology is what the topology invariants read from the server and the
// desks. Sites are identities (siteIdentity), whatever names they have.
type topology struct {
	labelSite   map[string]string // code → its site
	stationSite map[string]string // station → its site
	deskSite    []string          // desk → its station's site
	removed     map[string]int64  // removed operator → removed_at
	current     map[string]bool   // the staff list's current operators
	deskStaff   []map[string]bool // desk → its current operators
}

func (c *checker) readTopology(ctx context.Context) error {
	var err error
	t := &c.topo
	if t.labelSite, err = c.r.srv.labelSites(ctx); err != nil {
		return fmt.Errorf("the labels' sites: %w", err)
	}
	if t.stationSite, err = c.r.srv.stationSites(ctx); err != nil {
		return fmt.Errorf("the stations' sites: %w", err)
	}
	for _, d := range c.r.desks {
		t.deskSite = append(t.deskSite, t.stationSite[d.serverName])
	}
	if t.removed, err = c.r.srv.staffRemoved(ctx); err != nil {
		return fmt.Errorf("the staff list: %w", err)
	}
	if t.current, err = c.r.srv.staffCurrent(ctx); err != nil {
		return fmt.Errorf("the staff list: %w", err)
	}
	for _, d := range c.r.desks {
		ops, err := d.svc.Operators().List(ctx, false)
		if err != nil {
			return fmt.Errorf("desk %s operators: %w", deskName(d.idx), err)
		}
		names := map[string]bool{}
		for _, op := range ops {
			names[op.Name] = true
		}
		t.deskStaff = append(t.deskStaff, names)
	}
	if c.r.cfg.on(TopoRename) {
		names, err := c.r.srv.siteNamesNow(ctx)
		if err != nil {
			return err
		}
		c.notes = append(c.notes, "the sites' names at the end: "+strings.Join(names, ", "))
	}
	return nil
}

// mustHold reports whether desk d must hold a label and follow it (I3):
// every label without sites, its own site's with them (another site's
// copy is I10's).
func (c *checker) mustHold(d int, code string) bool {
	if !c.r.cfg.on(TopoSites) {
		return true
	}
	return c.topo.labelSite[code] == c.topo.deskSite[d]
}

// lostByDeskRestore reports whether a scan's redemption may have gone
// with its desk's database: the desk was restored (or lost its database)
// after it, and the server never had it.
func (c *checker) lostByDeskRestore(v verdict) (deskRestoreRecord, bool) {
	if _, onServer := c.events[v.TraceID]; onServer {
		return deskRestoreRecord{}, false
	}
	for _, rs := range c.r.topo.deskRestores {
		if rs.Desk == v.Desk && rs.Group > v.Group && (rs.Lost || (rs.Accepted && rs.From == rs.Desk)) {
			return rs, true
		}
	}
	return deskRestoreRecord{}, false
}

func (c *checker) topologyInvariants() {
	on := c.r.cfg.on
	if on(TopoInvCopies) {
		c.copies()
	}
	if on(TopoInvConflictSites) {
		c.conflictSites()
	}
	if on(TopoInvCloseScope) {
		c.closeScope()
	}
	if on(TopoInvSerials) {
		c.serials()
	}
	if on(TopoInvStaff) {
		c.staffFlagged()
		c.staffCloses()
	}
	c.refusals(on(TopoInvRefusals))
	if on(TopoRehire) {
		c.rehired()
	}
}

// copies: every desk's copy of a label equals the server's.
func (c *checker) copies() {
	now := c.server.Now
	norm := func(status string, exp int64) string {
		if status == "unused" && exp != 0 && exp <= now {
			return "expired"
		}
		return status
	}
	near := func(exp int64) bool { return exp != 0 && exp > now-5 && exp < now+5 }
	for l, lab := range c.r.labels {
		sc, ok := c.server.Codes[lab.Code]
		if lab.Code == "" || !ok || near(sc.ExpireAt) {
			continue
		}
		var differ []string
		for d, st := range c.desks {
			dc, ok := st.Codes[lab.Code]
			switch {
			case !ok:
			case dc.ExpireAt != sc.ExpireAt:
				differ = append(differ, fmt.Sprintf("desk %s has it %s, expiring %s", deskName(d), dc.Status, clock(dc.ExpireAt)))
			case norm(dc.Status, dc.ExpireAt) != norm(sc.Status, sc.ExpireAt):
				differ = append(differ, fmt.Sprintf("desk %s has it %s", deskName(d), dc.Status))
			}
		}
		if len(differ) > 0 {
			site := ""
			if s := c.topo.labelSite[lab.Code]; s != "" {
				site = " (site " + s + ")"
			}
			c.fail(InvCopies, l, "the server has it %s, expiring %s%s; %s", sc.Status, clock(sc.ExpireAt), site, strings.Join(differ, ", "))
		}
	}
}

// conflictSites: every conflict is listed at the desks and sites that
// took part.
func (c *checker) conflictSites() {
	for _, k := range c.server.Conflicts {
		sites := []string{c.topo.labelSite[k.Code], c.topo.stationSite[k.FirstStation], c.topo.stationSite[k.SecondStation]}
		var missing []string
		for d, st := range c.desks {
			_, first := c.stations[k.FirstStation]
			took := (first && c.stations[k.FirstStation] == d) || c.stations[k.SecondStation] == d
			if !took && !slices.Contains(sites, c.topo.deskSite[d]) {
				continue
			}
			if dk, ok := st.Conflicts[k.SecondEvent]; !ok || dk.FirstEvent != k.FirstEvent {
				missing = append(missing, fmt.Sprintf("%s (site %s)", deskName(d), orNone(c.topo.deskSite[d])))
			}
		}
		if len(missing) > 0 {
			c.fail(InvConflictSites, c.label(k.Code), "conflict %s by %s / %s by %s (label of site %s) is not listed at desks %s",
				k.FirstEvent, k.FirstStation, k.SecondEvent, k.SecondStation, orNone(c.topo.labelSite[k.Code]), strings.Join(missing, ", "))
		}
	}
}

// closeScope: every label a close expired (an expire event the server
// took) is of the closing desk's site and of the server's day.
func (c *checker) closeScope() {
	for _, e := range c.server.Events {
		if e.Kind != protocol.KindExpire || e.Outcome != protocol.OutcomeExpired {
			continue
		}
		d, ok := c.stations[e.Station]
		var closes []closeRecord
		for _, cl := range c.r.topo.closes {
			if ok && cl.Desk == d {
				closes = append(closes, cl)
			}
		}
		code, err := app.Parse(e.Code)
		site := c.topo.labelSite[e.Code]
		fits := slices.ContainsFunc(closes, func(cl closeRecord) bool {
			return (!c.r.cfg.on(TopoSites) || c.closedIn(cl, site)) && (err != nil || !code.HasSerial() || code.Date == cl.Day)
		})
		if !fits {
			var scope []string
			for _, cl := range closes {
				scope = append(scope, fmt.Sprintf("g%02d site %s day %s", cl.Group+1, orNone(cl.Site), cl.Day))
			}
			c.fail(InvCloseScope, c.label(e.Code), "%s expired it (event %s, label of site %s, dated %s); that desk's closes: %s",
				e.Station, e.EventID, orNone(site), code.Date, orNone(strings.Join(scope, ", ")))
		}
	}
}

// closedIn reports whether close cl may expire a label of site: the site
// the server held the desk in at the close; or the site the desk knew it
// was in, when the server holds it there again before the close's
// expiries arrive: a server restore after the close lost a move the desk
// had not heard of, or the administrator moved the desk back (the server
// expires only where the desk's site and its own agree when it decides:
// central.CloseSiteRefusal).
func (c *checker) closedIn(cl closeRecord, site string) bool {
	if cl.Site == site {
		return true
	}
	if cl.DeskSite != site {
		return false
	}
	for _, rs := range c.r.restores {
		if rs.Group > cl.Group {
			return true
		}
	}
	for _, mv := range c.r.topo.moves {
		if mv.Desk == cl.Desk && mv.Group >= cl.Group && mv.Site == site {
			return true
		}
	}
	return false
}

// serials: no two labels share a letter, a date and a serial.
func (c *checker) serials() {
	seen := map[string]map[string]bool{} // letter/date/serial → codes
	add := func(s string) {
		code, err := app.Parse(s)
		if err != nil || !code.HasSerial() {
			return
		}
		k := fmt.Sprintf("%s %s %s", code.Station, code.Date, code.SerialText())
		if seen[k] == nil {
			seen[k] = map[string]bool{}
		}
		seen[k][s] = true
	}
	for code := range c.server.Codes {
		add(code)
	}
	for _, st := range c.desks {
		for code := range st.Codes {
			add(code)
		}
	}
	for _, lab := range c.r.labels {
		if lab.Code != "" {
			add(lab.Code)
		}
	}
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range seen {
			if !yield(k) {
				return
			}
		}
	}) {
		if len(seen[k]) < 2 {
			continue
		}
		codes := slices.Sorted(func(yield func(string) bool) {
			for s := range seen[k] {
				if !yield(s) {
					return
				}
			}
		})
		var names []string
		for _, s := range codes {
			names = append(names, c.codeName(s))
		}
		c.fail(InvSerials, c.label(codes[0]), "letter, date and serial %s carried by %d labels: %s", k, len(codes), strings.Join(names, ", "))
	}
}

// knownFlags are the server's flags before the staff flag of the fix.
const knownFlags = qcentral.FlagClockAhead | qcentral.FlagClockBehind | qcentral.FlagWhileDisabled | qcentral.FlagAfterExpiry | qcentral.FlagAfterClose | qcentral.FlagClockUnverified

// staffFlagged: a removed operator's redemption, scanned after the
// removal, carries a flag of its own.
func (c *checker) staffFlagged() {
	for _, v := range c.r.verdicts {
		at, removed := c.r.topo.removed[v.Desk]
		if !removed || v.Outcome != app.OutcomeRedeemed || !v.Began.After(at.Add(clockSlack)) {
			continue
		}
		if c.topo.removed[clerk(v.Desk)] == 0 && len(c.r.restores) > 0 {
			// A server restore lost the removal before any desk heard of
			// it: nothing that survives holds it (a desk that heard of it
			// sends it back, store.sendLostRemoval).
			continue
		}
		e, ok := c.events[v.TraceID]
		if !ok || (e.Outcome != protocol.OutcomeRedeemed && e.Outcome != protocol.OutcomeConflict) {
			continue
		}
		if e.Flags&^knownFlags == 0 {
			c.fail(InvStaffFlagged, v.Label, "%s, removed from the staff list at %s, redeemed it at desk %s at %s (g%02d); the server took it (event %s, %s) with no flag of it (flags %d)",
				clerk(v.Desk), at.Format("15:04:05"), deskName(v.Desk), v.Began.Format("15:04:05"), v.Group+1, e.EventID, e.Outcome, e.Flags)
		}
	}
}

// refusals: what must be refused was (strict), or a note says it was not.
func (c *checker) refusals(strict bool) {
	report := func(format string, args ...any) {
		if strict {
			c.fail(InvRefusals, -1, format, args...)
		} else {
			c.notes = append(c.notes, "not refused (inv-refusals off): "+fmt.Sprintf(format, args...))
		}
	}
	for _, rs := range c.r.topo.deskRestores {
		if rs.From != rs.Desk && rs.Accepted {
			report("desk %s's 'qrdesk restore' accepted desk %s's backup at g%02d: %s", deskName(rs.Desk), deskName(rs.From), rs.Group+1, rs.What)
		}
		if rs.Lost && rs.Recreated {
			report("desk %s lost its database file at g%02d and was opened again on a new one without a word", deskName(rs.Desk), rs.Group+1)
		}
	}
	for _, s := range c.r.topo.unsyncedIssue {
		report("%s", s)
	}
}

// staffCloses: a removed supervisor's close, made after the removal,
// expires nothing at the server, and each of its expiries is flagged.
func (c *checker) staffCloses() {
	for _, cl := range c.r.topo.closes {
		at, removed := c.r.topo.removed[cl.Desk]
		if !removed || cl.Operator != clerk(cl.Desk) || !cl.Began.After(at.Add(clockSlack)) {
			continue
		}
		if c.topo.removed[cl.Operator] == 0 && len(c.r.restores) > 0 {
			continue // a server restore lost the removal before any desk heard of it (staffFlagged)
		}
		for _, id := range cl.Events {
			e, ok := c.events[id]
			if !ok {
				continue // not on the server: I2's
			}
			what := fmt.Sprintf("%s, removed from the staff list at %s, closed the day at desk %s at %s (g%02d)",
				cl.Operator, at.Format("15:04:05"), deskName(cl.Desk), cl.Began.Format("15:04:05"), cl.Group+1)
			lost, flagged := c.removalLost(cl.Desk), e.Flags.Has(qcentral.FlagRemovedStaff)
			switch {
			case e.Outcome == protocol.OutcomeExpired && !lost:
				c.fail(InvStaffFlagged, c.label(e.Code), "%s; the server applied its expiry (event %s, flags %d)", what, e.EventID, e.Flags)
			case e.Outcome == protocol.OutcomeExpired && !flagged:
				c.fail(InvStaffFlagged, c.label(e.Code), "%s; the server, restored to before the removal, applied its expiry (event %s), and it carries no flag since the removal came back (flags %d)", what, e.EventID, e.Flags)
			case e.Outcome == protocol.OutcomeNotExpired && !flagged && !lost && !closeSiteRefusal(e.Detail):
				c.fail(InvStaffFlagged, c.label(e.Code), "%s; the server refused its expiry (event %s) with no flag of it (flags %d): %s", what, e.EventID, e.Flags, resultReason(e.Detail))
			}
		}
	}
}

// removalLost reports whether a server restore may have lost desk d's
// clerk's removal for a while: a restore at or after the removal's group
// to a backup taken at or before it.
func (c *checker) removalLost(d int) bool {
	in := c.r.topo.removedIn[d]
	for _, rs := range c.r.restores {
		if taken, ok := c.r.topo.serverBackups[rs.Backup]; ok && rs.Group >= in && taken <= in {
			return true
		}
	}
	return false
}

// closeSiteRefusal reports whether the server refused a close's expiry as
// made in another site (central.CloseSiteRefusal), which it decides before
// who closed. A reworded refusal reads as another one: the check then
// fails rather than passes.
func closeSiteRefusal(detail string) bool {
	return strings.HasPrefix(resultReason(detail), "the day was closed at a desk of site ")
}

// rehired: a clerk added again at the server after its desk's offline
// removal is current on the staff list and at every desk.
func (c *checker) rehired() {
	for _, rh := range c.r.topo.rehires {
		name := clerk(rh.Desk)
		if rs, lost := c.rehireLost(rh); lost {
			c.notes = append(c.notes, fmt.Sprintf("the server restore from backup %d at g%02d went back to before %s was added again at g%02d", rs.Backup, rs.Group+1, name, rh.Group+1))
			continue
		}
		var missing []string
		if !c.topo.current[name] {
			missing = append(missing, "the server's staff list")
		}
		for d, ops := range c.topo.deskStaff {
			if !ops[name] {
				missing = append(missing, "desk "+deskName(d))
			}
		}
		if len(missing) > 0 {
			c.fail(InvRehired, -1, "%s (g%02d: %s) is not a current operator at %s", name, rh.Group+1, rh.What, strings.Join(missing, ", "))
		}
	}
}

// rehireLost is the server restore after a Rehire step to a backup taken
// before it, if any. A backup of the step's own group may be taken before
// the administrator's acts: the steps of a group run side by side, and
// the rehire waits seconds between them.
func (c *checker) rehireLost(rh rehireRecord) (restoreRecord, bool) {
	for _, rs := range c.r.restores {
		if taken, ok := c.r.topo.serverBackups[rs.Backup]; ok && rs.Group >= rh.Group && taken <= rh.Group {
			return rs, true
		}
	}
	return restoreRecord{}, false
}
