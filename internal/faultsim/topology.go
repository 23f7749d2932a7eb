package faultsim

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
)

// The topology of issue 33: where two features meet. Each family of
// actions and each new invariant is switched on by name (Config.Topology;
// QRDESK_SOAK_TOPOLOGY in the tests), so that a family that finds a defect
// not fixed yet can stay off in make test's fixed seeds and on in the soak.
// With every action family off a seed draws the schedule it drew before
// them.
const (
	// Actions.
	TopoSites        = "sites"         // three sites (main, North, South), the desks spread over them; cross-site scans follow
	TopoMove         = "move"          // the administrator moves desks between sites (implies sites)
	TopoIssue        = "issue"         // desks issue more labels during the run, by their clock, some for tomorrow
	TopoDeskRestore  = "desk-restore"  // desks back their database up and are restored from their own backup ('qrdesk restore')
	TopoWrongRestore = "wrong-restore" // a desk is given another desk's backup (implies desk-restore)
	TopoLostDB       = "lost-db"       // a desk's database file is lost and the desk opened again (implies desk-restore)
	TopoClockDays    = "clock-days"    // desk clocks a day or days off, and desk time zones far ahead or behind
	TopoExpire       = "expire"        // 'qrdesk expire' at a desk, by its clock
	TopoCloses       = "closes"        // up to maxCloses day closes at any time, at the desks' clocks (a multi-day run)
	TopoStaff        = "staff"         // a desk goes offline and its clerk is removed from the staff list; the clerk goes on scanning
	TopoRename       = "rename"        // the administrator renames a site, maybe back again later (implies sites)
	TopoStaffClose   = "staff-close"   // a removed clerk closes the day with expiry at its desk, offline (implies staff)
	TopoRehire       = "rehire"        // a desk removes its clerk offline while the administrator removes and adds the clerk again
	TopoOrders       = "orders"        // desks import order files (orders.go): the same file again, another desk's, one naming an order issued before; with its invariant I18

	// Invariants (see the Inv constants in topocheck.go).
	TopoInvCopies        = "inv-copies"         // InvCopies
	TopoInvConflictSites = "inv-conflict-sites" // InvConflictSites
	TopoInvCloseScope    = "inv-close-scope"    // InvCloseScope
	TopoInvSerials       = "inv-serials"        // InvSerials
	TopoInvStaff         = "inv-staff"          // InvStaffFlagged
	TopoInvRefusals      = "inv-refusals"       // InvRefusals
)

// TopologyClasses are every name Config.Topology takes.
var TopologyClasses = []string{TopoSites, TopoMove, TopoIssue, TopoDeskRestore, TopoWrongRestore, TopoLostDB, TopoClockDays, TopoExpire, TopoCloses, TopoStaff,
	TopoRename, TopoStaffClose, TopoRehire, TopoOrders,
	TopoInvCopies, TopoInvConflictSites, TopoInvCloseScope, TopoInvSerials, TopoInvStaff, TopoInvRefusals}

// DefaultTopology is what make test's fixed seeds run: the families and
// invariants that hold on them. The others still find defects in a soak
// (docs/reliability.md, "Where features meet", lists what each finds):
// inv-conflict-sites fails fixed seed 4 on PostgreSQL in some runs (a
// conflict of another site's label not listed at a North desk);
// desk-restore, wrong-restore, lost-db and clock-days fail seeds of a
// 10-seed soak (I3, I7, I10). Switch them on here as the fixes merge.
var DefaultTopology = []string{TopoSites, TopoMove, TopoIssue, TopoExpire, TopoCloses, TopoStaff, TopoRename, TopoStaffClose, TopoRehire, TopoOrders,
	TopoInvSerials, TopoInvCopies, TopoInvRefusals, TopoInvCloseScope, TopoInvStaff}

// ParseTopology reads a QRDESK_SOAK_TOPOLOGY value: "all", "none",
// "default", or names of TopologyClasses separated by commas (a leading
// "default," adds to DefaultTopology; "-name" takes one away).
func ParseTopology(v string) ([]string, error) {
	var out []string
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		switch {
		case part == "" || part == "none":
		case part == "all":
			out = append(out, TopologyClasses...)
		case part == "default":
			out = append(out, DefaultTopology...)
		case strings.HasPrefix(part, "-"):
			out = slices.DeleteFunc(out, func(s string) bool { return s == part[1:] })
		case slices.Contains(TopologyClasses, part):
			out = append(out, part)
		default:
			return nil, fmt.Errorf("%q is not one of all, none, default, %s", part, strings.Join(TopologyClasses, ", "))
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// topologyFromEnv is QRDESK_SOAK_TOPOLOGY, or DefaultTopology when unset.
func topologyFromEnv() ([]string, error) {
	v, ok := os.LookupEnv("QRDESK_SOAK_TOPOLOGY")
	if !ok {
		return slices.Clone(DefaultTopology), nil
	}
	return ParseTopology(v)
}

// on reports whether a topology class is switched on (move and rename
// imply sites; wrong-restore and lost-db imply desk-restore; staff-close
// implies staff).
func (c Config) on(name string) bool {
	if slices.Contains(c.Topology, name) {
		return true
	}
	switch name {
	case TopoSites:
		return slices.Contains(c.Topology, TopoMove) || slices.Contains(c.Topology, TopoRename)
	case TopoDeskRestore:
		return slices.Contains(c.Topology, TopoWrongRestore) || slices.Contains(c.Topology, TopoLostDB)
	case TopoStaff:
		return slices.Contains(c.Topology, TopoStaffClose)
	}
	return false
}

// staffList reports whether the desks' clerks are on the deployment's
// staff list (the families that change it).
func (c Config) staffList() bool { return c.on(TopoStaff) || c.on(TopoRehire) }

// maxCloses bounds the day closes of a run with closes on.
const maxCloses = 3

// clockDays are the ClockDays steps' clocks: a day or days off, and time
// zones (ahead of the server's by Zone) with the clock right or not.
var clockDays = []struct{ Skew, Zone time.Duration }{
	{0, 0}, {26 * time.Hour, 0}, {-30 * time.Hour, 0}, {72 * time.Hour, 0}, {-50 * time.Hour, 0}, {-3 * time.Hour, 0}, {6 * time.Hour, 0},
	{0, 13 * time.Hour}, {0, -11 * time.Hour}, {3 * time.Hour, 10 * time.Hour}, {-2 * time.Hour, -9 * time.Hour},
}

// topoPlanner is what the topology's steps drew so far.
type topoPlanner struct {
	closes   int
	backups  int     // desk backups drawn
	own      [][]int // per desk, the numbers of its backups
	lost     []bool  // the desk lost its database already (once a run)
	removed  []bool  // the desk's clerk was removed
	issued   int     // labels IssueMore steps drew
	replaced int     // labels Replace steps drew

	siteName    []string // each site's name as the renames drawn so far left it
	renames     int
	staffClosed []bool // the desk's removed clerk closed a day (StaffClose)
	rehired     []bool // the desk's clerk was removed and added again (Rehire)
	imports     int    // ImportOrder steps drawn
	orderLabels int    // labels ImportOrder steps reserved
	orderIdx    []int  // the universe's indexes they take
}

func (t *topoPlanner) init(cfg Config) {
	t.own = make([][]int, cfg.Desks)
	t.lost = make([]bool, cfg.Desks)
	t.removed = make([]bool, cfg.Desks)
	t.siteName = slices.Clone(topologySites)
	t.staffClosed = make([]bool, cfg.Desks)
	t.rehired = make([]bool, cfg.Desks)
}

// any reports whether some desk d has fits(d).
func (t *topoPlanner) any(fits func(d int) bool) bool {
	for d := range t.removed {
		if fits(d) {
			return true
		}
	}
	return false
}

// topoKinds are the topology's step kinds that may be drawn now.
func (g *planner) topoKinds(gs *groupState) []weighted {
	var kinds []weighted
	add := func(class string, k StepKind, w int) {
		if g.cfg.on(class) {
			kinds = append(kinds, weighted{k, w})
		}
	}
	add(TopoMove, MoveDesk, 3)
	add(TopoIssue, IssueMore, 3)
	add(TopoDeskRestore, DeskBackup, 2)
	if g.topo.backups > 0 {
		add(TopoDeskRestore, DeskRestore, 2)
		add(TopoLostDB, LoseDB, 1)
	}
	add(TopoClockDays, ClockDays, 3)
	add(TopoExpire, Expire, 2)
	if slices.Contains(g.topo.removed, false) {
		add(TopoStaff, StaffRemove, 2)
	}
	// The families of the seams of 2026-12-05, appended so that with them
	// off a seed draws what it drew before.
	if g.topo.renames < maxRenames {
		add(TopoRename, RenameSite, 2)
	}
	if g.topo.any(func(d int) bool { return g.topo.fits(StaffClose, d) }) {
		add(TopoStaffClose, StaffClose, 3)
	}
	if g.topo.any(func(d int) bool { return g.topo.fits(Rehire, d) }) {
		add(TopoRehire, Rehire, 2)
	}
	if g.topo.imports < maxImports {
		add(TopoOrders, ImportOrder, 3)
	}
	return kinds
}

// fits reports whether desk d may take a step of kind now: a staff close
// is its removed clerk's, once; a rehire is of a clerk still on the list,
// once. Every other kind fits every desk (topoStep may still refuse), so
// the draws of the families before these stay as they were.
func (t *topoPlanner) fits(kind StepKind, d int) bool {
	switch kind {
	case StaffClose:
		return t.removed[d] && !t.staffClosed[d]
	case Rehire:
		return !t.removed[d] && !t.rehired[d]
	}
	return true
}

// topoStep fills in a topology step for desk s.Desk; false: none fits.
func (g *planner) topoStep(s *Step) bool {
	t, d := &g.topo, s.Desk
	switch s.Kind {
	case MoveDesk:
		s.Site = g.rng.IntN(len(topologySites))
	case IssueMore:
		s.Count, s.Tomorrow = 2, g.rng.IntN(4) == 0
		s.New = g.universe() + g.newExtra
		for i := range s.Count {
			t.issued++
			g.names[s.New+i] = fmt.Sprintf("N%02d", t.issued)
		}
		g.newExtra += s.Count
	case DeskBackup:
		t.backups++
		s.Backup = t.backups
		t.own[d] = append(t.own[d], t.backups)
	case DeskRestore:
		var others [][2]int // desk, backup
		for o, list := range t.own {
			for _, b := range list {
				if o != d {
					others = append(others, [2]int{o, b})
				}
			}
		}
		wrong := g.cfg.on(TopoWrongRestore) && len(others) > 0 && (len(t.own[d]) == 0 || g.rng.IntN(3) == 0)
		switch {
		case wrong:
			o := others[g.rng.IntN(len(others))]
			s.From, s.Backup = o[0], o[1]
		case len(t.own[d]) > 0:
			s.From, s.Backup = d, t.own[d][g.rng.IntN(len(t.own[d]))]
		default:
			return false
		}
	case LoseDB:
		if t.lost[d] || len(t.own[d]) == 0 {
			return false
		}
		t.lost[d] = true
		s.From, s.Backup = d, t.own[d][len(t.own[d])-1] // restored from its latest backup after
	case ClockDays:
		c := clockDays[g.rng.IntN(len(clockDays))]
		s.Skew, s.Zone = c.Skew, c.Zone
	case Expire:
	case StaffRemove:
		if t.removed[d] || t.rehired[d] {
			return false
		}
		t.removed[d] = true
	case RenameSite:
		s.Site = g.rng.IntN(len(topologySites))
		others := slices.DeleteFunc(slices.Clone(siteNames[s.Site]), func(n string) bool { return n == t.siteName[s.Site] })
		s.Name = others[g.rng.IntN(len(others))]
		t.siteName[s.Site] = s.Name
		t.renames++
	case StaffClose:
		t.staffClosed[d] = true
	case Rehire:
		t.rehired[d] = true
	case ImportOrder:
		g.importOrder(s)
	}
	return true
}

// topologyString is a topology step in words ("" for other steps).
func (p Plan) topologyString(s Step, d string) string {
	switch s.Kind {
	case MoveDesk:
		return d + " moved to site " + topologySites[s.Site]
	case IssueMore:
		day := "today"
		if s.Tomorrow {
			day = "tomorrow"
		}
		return fmt.Sprintf("%s issues %s, %s for %s by its clock", d, p.name(s.New), p.name(s.New+s.Count-1), day)
	case DeskBackup:
		return fmt.Sprintf("%s backs its database up (desk backup %d)", d, s.Backup)
	case DeskRestore:
		if s.From != s.Desk {
			return fmt.Sprintf("%s is given desk %s's backup %d to restore", d, deskName(s.From), s.Backup)
		}
		return fmt.Sprintf("%s is restored from its backup %d", d, s.Backup)
	case LoseDB:
		return fmt.Sprintf("%s loses its database file, is opened again, then restored from its backup %d", d, s.Backup)
	case ClockDays:
		return fmt.Sprintf("%s clock skew %+v, time zone %+v from the server's", d, s.Skew, s.Zone)
	case Expire:
		return d + " runs qrdesk expire"
	case StaffRemove:
		return d + " goes offline; its clerk is removed from the staff list"
	case RenameSite:
		if s.Name == topologySites[s.Site] {
			return fmt.Sprintf("the administrator gives site %s its first name back", s.Name)
		}
		return fmt.Sprintf("the administrator renames site %s to %s", topologySites[s.Site], s.Name)
	case StaffClose:
		return d + " goes offline; its clerk, removed from the staff list, closes the day expiring unused labels"
	case Rehire:
		return d + " goes offline and removes its clerk; the administrator removes the clerk and adds it again"
	case ImportOrder:
		return fmt.Sprintf("%s imports order file %d (%s) as %s … %s", d, s.File+1, orderFiles[s.File].String(), p.name(s.New), p.name(s.New+s.Count-1))
	}
	return ""
}
