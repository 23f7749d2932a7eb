package faultsim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// StepKind is one kind of thing that happens in a run.
type StepKind int

const (
	Scan          StepKind = iota // a clerk scans a label at a desk
	Disable                       // a clerk disables a label at a desk
	Enable                        // a clerk enables it again
	Sync                          // a desk syncs with the server
	SetMode                       // a desk's network changes (its proxy's mode)
	Restart                       // the server is killed and started again
	Revoke                        // the desk's token is revoked on the server
	Retoken                       // the desk gets a working token again (a new station on the server)
	Skew                          // a desk's clock changes
	Replace                       // a desk replaces a label it knows; the new label joins the universe
	Undo                          // a desk undoes its own redemption of a label (Outside: past the undo window)
	CloseDay                      // a desk closes the day and expires the day's unused labels
	Backup                        // the server is stopped, its database copied (backup Backup), and started
	ServerRestore                 // the server is stopped, its database replaced by backup Backup, and started

	// The topology of issue 33 (topology.go), each drawn only when its
	// family is on (Config.Topology).
	MoveDesk    // the administrator moves the desk to site Site
	IssueMore   // the desk issues Count more labels (for tomorrow if Tomorrow) by its clock; they join the universe at New
	DeskBackup  // the desk backs its database up (desk backup Backup)
	DeskRestore // the desk's database is replaced by desk backup Backup ('qrdesk restore'), taken at desk From
	LoseDB      // the desk's database file is lost; the desk is opened again ('qrdesk stats')
	ClockDays   // the desk's clock moves by Skew and its time zone by Zone (ahead of the server's)
	Expire      // the desk runs 'qrdesk expire' by its clock
	StaffRemove // the desk goes offline, then the administrator removes its clerk from the staff list
	RenameSite  // the administrator renames site Site (topologySites) to Name
	StaffClose  // the desk goes offline; its clerk, removed from the staff list, closes the day expiring unused labels
	Rehire      // the desk goes offline and removes its clerk; the administrator removes the clerk and adds it again
	ImportOrder // the desk imports order file File (orderFiles); its labels join the universe at New (Count reserved)
)

// Step is one action of a schedule. Desk, Label, Mode, Skew, New, Outside
// and Backup are used as the kind needs them; Label and New index the label
// universe (the desks' batches, then the replacements in order).
type Step struct {
	Kind    StepKind
	Desk    int
	Label   int
	Mode    Mode
	Skew    time.Duration
	New     int  // Replace: the index the replacement label gets
	Outside bool // Undo: the desk's clock is past the undo window
	Backup  int  // Backup, ServerRestore: which backup (numbered from 1); DeskBackup, DeskRestore: which desk backup
	// The topology's steps.
	Site     int           // MoveDesk: the site (topologySites)
	From     int           // DeskRestore: the desk the backup was taken at (≠ Desk: another desk's backup)
	Count    int           // IssueMore: how many labels
	Tomorrow bool          // IssueMore: for the day after the desk's today
	Zone     time.Duration // ClockDays: the desk's time zone, ahead of the server's
	Name     string        // RenameSite: the site's new name (siteNames)
	File     int           // ImportOrder: the order file (orderFiles)
}

// Plan is a schedule drawn from a seed: groups of steps, the steps of a group
// running at the same time, the groups one after the other.
type Plan struct {
	Seed   uint64
	Groups [][]Step
	per    int // labels per desk, for names
	desks  int
	// Replacements is how many labels Replace and IssueMore steps add to
	// the universe (indexes desks×per …); a label the desk refused to make
	// stays empty.
	Replacements int
	// extraNames names the labels IssueMore steps add (N01 …; a
	// replacement is R and its number).
	extraNames map[int]string
}

// name is label l's short name in this plan.
func (p Plan) name(l int) string {
	if n, ok := p.extraNames[l]; ok {
		return n
	}
	return labelName(l, p.per, p.desks)
}

// Fault classes that Config.Off can switch off (to look past a known bug).
// The last four are actions rather than faults: with all four off a seed
// draws the schedule it drew before they existed.
var FaultClasses = []string{"disable", "revoke", "restart", "skew", "delay", "late", "drop-request", "drop-answer", "duplicate", "refuse", "race",
	"replace", "undo", "close-day", "restore"}

// NewActions are the classes added with issue 17 (replace, undo, close-day
// expiry, server restore): QRDESK_FAULTS_OFF=new switches them all off.
var NewActions = []string{"replace", "undo", "close-day", "restore"}

// labelName is a label's short name: its desk letter and its number there,
// or R and its number for a replacement.
func labelName(label, per, desks int) string {
	if label >= per*desks {
		return fmt.Sprintf("R%02d", label-per*desks+1)
	}
	return fmt.Sprintf("%c%02d", 'A'+label/per, label%per+1)
}

func deskName(d int) string { return string(rune('A' + d)) }

func (p Plan) stepString(s Step) string {
	d := "desk " + deskName(s.Desk)
	name := p.name
	switch s.Kind {
	case Scan:
		return d + " scans " + name(s.Label)
	case Disable:
		return d + " disables " + name(s.Label)
	case Enable:
		return d + " enables " + name(s.Label)
	case Replace:
		return d + " replaces " + name(s.Label) + " by " + name(s.New)
	case Undo:
		if s.Outside {
			return d + " undoes its redemption of " + name(s.Label) + " past the undo window"
		}
		return d + " undoes its redemption of " + name(s.Label)
	case CloseDay:
		return d + " closes the day, expiring unused labels"
	case Backup:
		return fmt.Sprintf("server stopped, backup %d taken, started", s.Backup)
	case ServerRestore:
		return fmt.Sprintf("server stopped, restored from backup %d, started", s.Backup)
	case Sync:
		return d + " syncs"
	case SetMode:
		return d + " network: " + s.Mode.String()
	case Restart:
		return "server killed and restarted"
	case Revoke:
		return d + "'s token revoked"
	case Retoken:
		return d + " gets a new token"
	case Skew:
		return fmt.Sprintf("%s clock skew %+v", d, s.Skew)
	}
	if t := p.topologyString(s, d); t != "" {
		return t
	}
	return fmt.Sprintf("step kind %d", int(s.Kind))
}

// String is the schedule, one group a line.
func (p Plan) String() string {
	var b strings.Builder
	for i, g := range p.Groups {
		parts := make([]string, len(g))
		for j, s := range g {
			parts[j] = p.stepString(s)
		}
		fmt.Fprintf(&b, "g%02d: %s\n", i+1, strings.Join(parts, " | "))
	}
	return b.String()
}

// planner draws a schedule; it tracks what the schedule did so far (never
// what happened when it ran), so the plan depends on the seed alone.
type planner struct {
	cfg      Config
	rng      *rand.Rand
	off      map[string]bool
	scanned  []int          // labels scanned so far, in order of first scan
	by       map[int]uint64 // label → bit set of desks that scanned it
	disabled []int          // labels a plan step disabled and none enabled since
	revoked  []bool
	group    int // the group being drawn
	extra    int // replacement labels scannable (drawn in earlier groups)
	newExtra int // replacement labels drawn in this group
	closed   bool
	backups  int
	pairs    [][2]int    // replaced label, replacement
	first    map[int]int // label → the desk that scanned it first (most likely the one that redeemed it)
	topo     topoPlanner // what the topology's steps drew (topology.go)
	names    map[int]string
}

// NewPlan draws the schedule of cfg.Seed.
func NewPlan(cfg Config) Plan {
	cfg = cfg.withDefaults()
	g := &planner{
		cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, 0x9e3779b97f4a7c15)),
		off: map[string]bool{}, by: map[int]uint64{}, revoked: make([]bool, cfg.Desks), first: map[int]int{},
		names: map[int]string{},
	}
	g.topo.init(cfg)
	for _, o := range cfg.Off {
		g.off[o] = true
	}
	p := Plan{Seed: cfg.Seed, per: cfg.CodesPerDesk, desks: cfg.Desks}
	for len(p.Groups) < cfg.Groups {
		g.group = len(p.Groups)
		var group []Step
		switch x := g.rng.IntN(100); {
		case x < 12 && !g.off["race"]:
			group = g.race()
		case x < 16 && !g.off["revoke"]:
			group = g.revokeWhileSyncing()
		}
		if group == nil {
			group = g.mixed()
		}
		p.Groups = append(p.Groups, group)
		g.extra += g.newExtra // scannable from the next group on
		g.newExtra = 0
	}
	p.Replacements = g.extra
	p.extraNames = g.names
	return p
}

// race: two or three desks scan one label at the same moment.
func (g *planner) race() []Step {
	n := 2 + g.rng.IntN(2)
	desks := g.rng.Perm(g.cfg.Desks)[:min(n, g.cfg.Desks)]
	label := g.label(desks[0])
	var out []Step
	for _, d := range desks {
		out = append(out, g.scan(d, label))
	}
	return out
}

// revokeWhileSyncing: the token is revoked while the desk syncs.
func (g *planner) revokeWhileSyncing() []Step {
	d := g.rng.IntN(g.cfg.Desks)
	if g.revoked[d] || g.revokedCount()*2 >= g.cfg.Desks {
		return nil
	}
	g.revoked[d] = true
	return []Step{{Kind: Sync, Desk: d}, {Kind: Revoke, Desk: d}}
}

func (g *planner) revokedCount() int {
	n := 0
	for _, r := range g.revoked {
		if r {
			n++
		}
	}
	return n
}

// mixed is one to three independent steps, at most one per desk (a
// revocation may share a group with its desk's own step).
func (g *planner) mixed() []Step {
	n := 1
	switch x := g.rng.IntN(10); {
	case x >= 8:
		n = 3
	case x >= 5:
		n = 2
	}
	gs := &groupState{busy: make([]bool, g.cfg.Desks), token: make([]bool, g.cfg.Desks)}
	var out []Step
	for tries := 0; len(out) < n && tries < 20; tries++ {
		if s, ok := g.step(gs); ok {
			out = append(out, s)
		}
	}
	return out
}

type weighted struct {
	kind StepKind
	w    int
}

// groupState is what the steps drawn for one group so far occupy.
type groupState struct {
	busy      []bool // the desk has a step in the group
	token     []bool // the desk's token is revoked or replaced in the group
	restarted bool   // a server step (restart, backup, restore) is in the group
	restored  bool   // a restore is in the group: no token step alongside
}

func (gs *groupState) anyToken() bool { return slices.Contains(gs.token, true) }

// step draws one step for the group: its kind by weight, then (but for
// the server's steps) a desk free for it and what it does. The order of
// the draws is part of a seed's schedule: a replayed seed draws the same.
func (g *planner) step(gs *groupState) (Step, bool) {
	kind := g.draw(g.stepKinds(gs))
	if s, ok := g.serverStep(kind, gs); ok {
		return s, true
	}
	free := g.freeDesks(kind, gs)
	if len(free) == 0 {
		return Step{}, false
	}
	d := free[g.rng.IntN(len(free))]
	s, ok := g.deskStep(kind, d)
	if !ok {
		return Step{}, false
	}
	switch kind {
	case Revoke:
		g.revoked[d], gs.token[d] = true, true
		return s, true // the desk's own step in this group, if any, runs alongside
	case Retoken:
		g.revoked[d], gs.token[d] = false, true
	}
	gs.busy[d] = true
	return s, true
}

// stepKinds is the kinds a step of this group may be, with their weights:
// what is switched off, and what the group already holds, left out.
func (g *planner) stepKinds(gs *groupState) []weighted {
	kinds := []weighted{{Scan, 46}, {Sync, 13}, {SetMode, 13}}
	if !g.off["disable"] {
		kinds = append(kinds, weighted{Disable, 5}, weighted{Enable, 3})
	}
	if !g.off["skew"] {
		kinds = append(kinds, weighted{Skew, 3})
	}
	if !g.off["restart"] && !gs.restarted {
		kinds = append(kinds, weighted{Restart, 3})
	}
	if !g.off["revoke"] && !gs.restored {
		if g.revokedCount()*2 < g.cfg.Desks {
			kinds = append(kinds, weighted{Revoke, 2})
		}
		if g.revokedCount() > 0 {
			kinds = append(kinds, weighted{Retoken, 8})
		}
	}
	// Replace and undo are appended after the first kinds, so with them
	// off the draws are those of before.
	if !g.off["replace"] {
		kinds = append(kinds, weighted{Replace, 4})
	}
	if !g.off["undo"] {
		kinds = append(kinds, weighted{Undo, 5})
	}
	if g.closeDayDue() {
		kinds = append(kinds, weighted{CloseDay, 2})
	}
	if !g.off["restore"] && !gs.restarted {
		kinds = append(kinds, weighted{Backup, 2})
		if g.backups > 0 && !gs.anyToken() {
			kinds = append(kinds, weighted{ServerRestore, 3})
		}
	}
	return append(kinds, g.topoKinds(gs)...) // last, so with the topology off the draws are those of before
}

// closeDayDue reports whether a desk may close its day now: with the
// topology's closes several times at any time (at the desks' clocks),
// else once, in the last third.
func (g *planner) closeDayDue() bool {
	switch {
	case g.off["close-day"]:
		return false
	case g.cfg.on(TopoCloses):
		return g.topo.closes < maxCloses
	}
	return !g.closed && g.group*3 >= g.cfg.Groups*2
}

// draw picks one kind, each as likely as its weight.
func (g *planner) draw(kinds []weighted) StepKind {
	total := 0
	for _, k := range kinds {
		total += k.w
	}
	x := g.rng.IntN(total)
	for _, k := range kinds {
		if x < k.w {
			return k.kind
		}
		x -= k.w
	}
	return 0
}

// serverStep is a step of the server's (restart, backup, restore), which
// takes no desk; ok is false for a desk's kind.
func (g *planner) serverStep(kind StepKind, gs *groupState) (Step, bool) {
	switch kind {
	case Restart:
		gs.restarted = true
		return Step{Kind: Restart}, true
	case Backup:
		gs.restarted = true
		g.backups++
		return Step{Kind: Backup, Backup: g.backups}, true
	case ServerRestore:
		gs.restarted, gs.restored = true, true
		return Step{Kind: ServerRestore, Backup: 1 + g.rng.IntN(g.backups)}, true
	}
	return Step{}, false
}

// freeDesks is the desks a step of this kind may take: a free desk; for a
// retoken, a revoked one; for a revoke, one with a working token (its
// other step in this group may run alongside).
func (g *planner) freeDesks(kind StepKind, gs *groupState) []int {
	var free []int
	for d := range gs.busy {
		switch {
		case kind == Retoken && (!g.revoked[d] || gs.busy[d] || gs.token[d]):
		case kind == Revoke && (g.revoked[d] || gs.token[d]):
		case kind != Revoke && gs.busy[d]:
		case !g.topo.fits(kind, d):
		default:
			free = append(free, d)
		}
	}
	return free
}

// deskStep is what desk d does in a step of this kind; ok is false when
// there is nothing for it to do (no label to undo, no topology step).
func (g *planner) deskStep(kind StepKind, d int) (Step, bool) {
	s := Step{Kind: kind, Desk: d}
	switch kind {
	case Scan:
		s = g.scan(d, g.label(d))
	case Disable:
		s.Label = g.disableLabel(d)
	case Enable:
		s.Label = g.enableLabel()
	case SetMode:
		s.Mode = g.mode()
	case Skew:
		// Behind and ahead by seconds, minutes, hours and days (as many
		// values as before: a seed draws the schedule it drew).
		skews := []time.Duration{0, -5 * time.Hour, 49 * time.Hour, -40 * time.Second, 7 * time.Minute, -25 * time.Minute, 2 * time.Hour, -24 * time.Hour}
		s.Skew = skews[g.rng.IntN(len(skews))]
	case Replace:
		s.Label = g.label(d)
		s.New = g.universe() + g.newExtra
		g.newExtra++
		g.pairs = append(g.pairs, [2]int{s.Label, s.New})
		g.topo.replaced++
		g.names[s.New] = fmt.Sprintf("R%02d", g.topo.replaced)
	case Undo:
		var ok bool
		if s.Label, ok = g.undoLabel(d); !ok {
			return Step{}, false
		}
		s.Outside = g.rng.IntN(3) == 0
	case CloseDay:
		g.closed = true
		g.topo.closes++
	case MoveDesk, IssueMore, DeskBackup, DeskRestore, LoseDB, ClockDays, Expire, StaffRemove, RenameSite, StaffClose, Rehire, ImportOrder:
		if !g.topoStep(&s) {
			return Step{}, false
		}
	}
	return s, true
}

// disableLabel is the label desk d disables: one of its own or any.
func (g *planner) disableLabel(d int) int {
	label := g.label(d)
	if g.rng.IntN(2) == 0 {
		label = g.rng.IntN(g.universe())
	}
	if !slices.Contains(g.disabled, label) {
		g.disabled = append(g.disabled, label)
	}
	return label
}

// enableLabel is the label a desk enables: mostly a disabled one.
func (g *planner) enableLabel() int {
	label := g.rng.IntN(g.universe())
	if len(g.disabled) > 0 && g.rng.IntN(5) > 0 {
		i := g.rng.IntN(len(g.disabled))
		label = g.disabled[i]
		g.disabled = slices.Delete(g.disabled, i, i+1)
	}
	return label
}

// undoLabel is the label desk d undoes: mostly the latest it scanned
// first (likely its own redemption), else any it scanned; none if it
// scanned nothing.
func (g *planner) undoLabel(d int) (int, bool) {
	var mine, firsts []int
	for _, l := range g.scanned {
		if g.by[l]&(1<<d) != 0 {
			mine = append(mine, l)
		}
		if g.first[l] == d {
			firsts = append(firsts, l)
		}
	}
	switch x := g.rng.IntN(10); {
	case len(firsts) > 0 && x < 5:
		return firsts[len(firsts)-1], true
	case len(firsts) > 0 && x < 8:
		return firsts[g.rng.IntN(len(firsts))], true
	case len(mine) > 0:
		return mine[g.rng.IntN(len(mine))], true
	}
	return 0, false
}

// universe is the labels a step may name: the desks' batches and the
// replacements drawn in earlier groups.
func (g *planner) universe() int { return g.cfg.Desks*g.cfg.CodesPerDesk + g.extra }

func (g *planner) scan(d, label int) Step {
	if g.by[label] == 0 {
		g.scanned = append(g.scanned, label)
		g.first[label] = d
	}
	g.by[label] |= 1 << d
	return Step{Kind: Scan, Desk: d, Label: label}
}

// label picks a label for desk d, mostly one already scanned at another
// desk: double uses are what the run is for.
func (g *planner) label(d int) int {
	x := g.rng.IntN(100)
	if x < 60 {
		var elsewhere []int
		for _, l := range g.scanned {
			if g.by[l]&^(1<<d) != 0 {
				elsewhere = append(elsewhere, l)
			}
		}
		if len(elsewhere) > 0 {
			return elsewhere[g.rng.IntN(len(elsewhere))]
		}
	}
	if x < 68 && len(g.disabled) > 0 {
		return g.disabled[g.rng.IntN(len(g.disabled))]
	}
	// A replaced label or its replacement (only once there are any, so the
	// draws without replacements are those of before).
	if x < 78 && g.extra > 0 {
		var pairs [][2]int
		for _, p := range g.pairs {
			if p[1] < g.universe() {
				pairs = append(pairs, p)
			}
		}
		if len(pairs) > 0 {
			return pairs[g.rng.IntN(len(pairs))][g.rng.IntN(2)]
		}
	}
	// A parcel of an imported order (only once there are any).
	if x < 90 {
		if parcels := g.orderParcels(); len(parcels) > 0 {
			return parcels[g.rng.IntN(len(parcels))]
		}
	}
	return g.rng.IntN(g.universe())
}

// mode draws a network behaviour for a desk.
func (g *planner) mode() Mode {
	type choice struct {
		class string
		w     int
		m     func() Mode
	}
	timeout := g.cfg.OnlineTimeout
	choices := []choice{
		{"", 30, func() Mode { return Mode{Kind: Pass} }},
		{"delay", 8, func() Mode { return Mode{Kind: Delay, Delay: timeout / 3} }},
		{"late", 22, func() Mode {
			return Mode{Kind: Delay, Delay: timeout + time.Duration(40+g.rng.IntN(120))*time.Millisecond}
		}},
		{"drop-request", 10, func() Mode { return Mode{Kind: DropRequest} }},
		{"drop-answer", 14, func() Mode { return Mode{Kind: DropAnswer} }},
		{"duplicate", 10, func() Mode { return Mode{Kind: Duplicate} }},
		{"refuse", 6, func() Mode { return Mode{Kind: Refuse} }},
	}
	total := 0
	for _, c := range choices {
		if !g.off[c.class] {
			total += c.w
		}
	}
	x := g.rng.IntN(total)
	for _, c := range choices {
		if g.off[c.class] {
			continue
		}
		if x < c.w {
			return c.m()
		}
		x -= c.w
	}
	return Mode{Kind: Pass}
}
