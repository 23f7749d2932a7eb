package faultsim

// Orders in (topology class "orders"): desks import the day's order files
// (qrdesk orders import, through the desk's service as the CLI and the
// window do): one batch per order, one label per parcel, the order number
// as the batch's ref. A desk imports any of orderFiles, again and again:
// the same file a second time, a file another desk imported, a file naming
// an order an earlier file issued. The labels an import issues join the
// universe (the steps after scan, disable, replace and undo them); a
// re-import issues none, and its reserved labels stay empty. I18 checks
// what the clerk relies on (see InvOrders).

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"qrdesk/app"
)

// InvOrders: each order's labels are one label, one use each (I1 holds
// them: they are in the universe); importing an order at a desk that
// issued it before issues nothing (the desk holds at most one batch of
// an order, in its database and at the server); and the parcel a desk
// names for a label (order, customer, parcel n of m) is the order's, at
// every desk that names one, when the clerk scans it and after the run;
// a desk that holds the label and its original after the run names it.
const InvOrders = "I18 an order is issued once at a desk, its parcels named alike at every desk"

func init() { Invariants = append(Invariants, InvOrders) }

// maxImports bounds the ImportOrder steps of a run.
const maxImports = 6

// orderRow is one order of an order file.
type orderRow struct {
	Number, Customer string
	Parcels          int
}

// orderFile is an order file as a warehouse system exports it.
type orderFile []orderRow

// orderFiles are the files the desks import: customers in German and
// Chinese, one with a comma (quoted in the file); file 3 names order W101
// of file 1 again beside a new one.
var orderFiles = []orderFile{
	{{"W101", "Müller", 3}, {"W102", "张伟", 1}},
	{{"W201", "Weber, Lager 2", 2}, {"W202", "Kim", 2}},
	{{"W101", "Müller", 3}, {"W301", "李娜", 2}},
}

// Parcels is the labels the file asks for.
func (f orderFile) Parcels() int {
	n := 0
	for _, o := range f {
		n += o.Parcels
	}
	return n
}

// offset is where order i's labels start among the file's.
func (f orderFile) offset(i int) int { return orderFile(f[:i]).Parcels() }

func (f orderFile) String() string {
	var parts []string
	for _, o := range f {
		parts = append(parts, fmt.Sprintf("%s×%d", o.Number, o.Parcels))
	}
	return strings.Join(parts, ", ")
}

// csv is the file as Excel writes it: a header, CRLF, a quoted comma.
func (f orderFile) csv() []byte {
	var b strings.Builder
	b.WriteString("order,customer,parcels\r\n")
	for _, o := range f {
		fmt.Fprintf(&b, "%s,%q,%d\r\n", o.Number, o.Customer, o.Parcels)
	}
	return []byte(b.String())
}

// importOrder fills in an ImportOrder step: which file, and the universe's
// indexes its labels take.
func (g *planner) importOrder(s *Step) {
	t := &g.topo
	t.imports++
	s.File = g.rng.IntN(len(orderFiles))
	f := orderFiles[s.File]
	s.Count = f.Parcels()
	s.New = g.universe() + g.newExtra
	for i, o := range f {
		for p := range o.Parcels {
			t.orderLabels++
			g.names[s.New+f.offset(i)+p] = fmt.Sprintf("O%02d", t.orderLabels)
			t.orderIdx = append(t.orderIdx, s.New+f.offset(i)+p)
		}
	}
	g.newExtra += s.Count
}

// orderParcels are the order labels scannable now (drawn in earlier
// groups); a re-import's stay empty, and their scans are skipped.
func (g *planner) orderParcels() []int {
	var out []int
	for _, l := range g.topo.orderIdx {
		if l < g.universe() {
			out = append(out, l)
		}
	}
	return out
}

// orderTruth is what a desk must name for a label of an order.
type orderTruth struct {
	Number, Customer string
	Parcel, Parcels  int
}

func (o orderTruth) String() string {
	return fmt.Sprintf("order %s · %s · parcel %d of %d", o.Number, o.Customer, o.Parcel, o.Parcels)
}

// importRecord is one ImportOrder step and what came of it.
type importRecord struct {
	Group, Desk, File int
	Issued            map[string][]string // order number → its labels' codes, in serial order
	Already           []string            // orders named as issued before
}

// importOrders runs an ImportOrder step: the desk's clerk imports the
// file; each order it issues takes its labels' indexes.
func (r *run) importOrders(ctx context.Context, g, i int, d *desk, s Step) (string, error) {
	f := orderFiles[s.File]
	// A file of the desk's own: two desks of one group import at the same
	// time, and one's write of a shared path emptied it under the other's
	// read (the harness failed "the order file is empty").
	path := filepath.Join(r.cfg.Dir, fmt.Sprintf("orders-%d-desk-%s.csv", s.File+1, deskName(d.idx)))
	if err := os.WriteFile(path, f.csv(), 0o600); err != nil {
		return "", err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	parsed, err := app.ParseOrderFile(data, app.EncodingAuto, nil)
	if err != nil || len(parsed.Refused) > 0 {
		return "", fmt.Errorf("order file %d: %v %v", s.File+1, err, parsed.Refused)
	}
	unsynced := d.unsynced.Load()
	res, err := d.svc.ImportOrders(ctx, parsed, app.OrderImport{Operator: clerk(d.idx)})
	if err != nil {
		return "refused: " + app.ErrorMessage(err), nil
	}
	rec := importRecord{Group: g, Desk: d.idx, File: s.File, Issued: map[string][]string{}}
	var out []string
	for _, io := range res.Issued {
		k := slices.IndexFunc(f, func(o orderRow) bool { return o.Number == io.Number })
		if k < 0 {
			return "", fmt.Errorf("order file %d: the desk issued order %s, not in the file", s.File+1, io.Number)
		}
		codes, err := d.db.BatchCodes(ctx, io.Batch)
		if err != nil {
			return "", err
		}
		var names []string
		for p, c := range codes {
			rec.Issued[io.Number] = append(rec.Issued[io.Number], c.Code)
			if p >= f[k].Parcels {
				continue // more labels than parcels: I18 reports it
			}
			l := s.New + f.offset(k) + p
			r.mu.Lock()
			r.labels[l] = label{Name: r.plan.name(l), Code: c.Code, Desk: d.idx, ExpireAt: c.ExpireAt, Of: -1}
			r.byCode[c.Code] = l
			r.topo.orderTruth[c.Code] = orderTruth{Number: f[k].Number, Customer: f[k].Customer, Parcel: p + 1, Parcels: f[k].Parcels}
			r.actions = append(r.actions, action{Group: g, Step: i, Desk: d.idx, Label: l, Kind: ImportOrder, Result: fmt.Sprintf("issued %s, order %s parcel %d of %d", c.Code, f[k].Number, p+1, f[k].Parcels)})
			r.mu.Unlock()
			names = append(names, r.plan.name(l))
		}
		out = append(out, fmt.Sprintf("order %s issued as %s", io.Number, strings.Join(names, ", ")))
	}
	for _, a := range res.Already {
		rec.Already = append(rec.Already, a.Number)
		out = append(out, fmt.Sprintf("order %s issued before (batch %d)", a.Number, a.Batch))
	}
	r.mu.Lock()
	r.topo.imports = append(r.topo.imports, rec)
	if unsynced && len(res.Issued) > 0 {
		r.topo.unsyncedIssue = append(r.topo.unsyncedIssue, fmt.Sprintf("desk %s imported order file %d at g%02d, restored from a backup and not synced since: %s", deskName(d.idx), s.File+1, g+1, strings.Join(out, "; ")))
	}
	r.mu.Unlock()
	return strings.Join(out, "; "), nil
}

// orders checks I18.
func (c *checker) orders(ctx context.Context) error {
	c.ordersOnce()
	if err := c.ordersAtDesks(ctx); err != nil {
		return err
	}
	c.ordersScanned()
	return nil
}

// restoredBetween reports whether desk d was restored (or lost its
// database) after group from: what it issued before may be gone from it.
func (c *checker) restoredBetween(d, from int) bool {
	for _, rs := range c.r.topo.deskRestores {
		if rs.Desk == d && rs.Group > from && (rs.Lost || (rs.Accepted && rs.From == rs.Desk)) {
			return true
		}
	}
	return false
}

// ordersOnce: a desk issues an order once, unless it lost the first batch
// with a restore before the server had it.
func (c *checker) ordersOnce() {
	first := map[[2]string]importRecord{} // desk letter, order → the import that issued it
	for _, im := range c.r.topo.imports {
		for number, codes := range im.Issued {
			k := [2]string{deskName(im.Desk), number}
			if prev, ok := first[k]; ok {
				_, reached := c.server.Codes[prev.Issued[number][0]]
				if reached || !c.restoredBetween(im.Desk, prev.Group) {
					c.fail(InvOrders, c.label(codes[0]), "desk %s issued order %s again at g%02d (order file %d), issued there at g%02d (order file %d) already",
						deskName(im.Desk), number, im.Group+1, im.File+1, prev.Group+1, prev.File+1)
				}
				continue
			}
			first[k] = im
			if want := orderParcels(number); len(codes) != want {
				c.fail(InvOrders, c.label(codes[0]), "desk %s issued order %s as %d labels, want %d (its parcels)", deskName(im.Desk), number, len(codes), want)
			}
		}
	}
}

// orderParcels is the parcel count of an order of orderFiles.
func orderParcels(number string) int {
	for _, f := range orderFiles {
		for _, o := range f {
			if o.Number == number {
				return o.Parcels
			}
		}
	}
	return 0
}

// truthOf is what a desk must name for label l: its original's order
// (a replacement is its original's parcel); false for no order's label.
func (c *checker) truthOf(l int) (orderTruth, bool) {
	if l < 0 {
		return orderTruth{}, false
	}
	t, ok := c.r.topo.orderTruth[c.r.labels[c.root(l)].Code]
	return t, ok
}

// ordersAtDesks: after the run, every desk names each order label as its
// order says, and names it when it holds the label and its original; a
// desk holds no more labels of an order of its own letter than the order
// has parcels.
func (c *checker) ordersAtDesks(ctx context.Context) error {
	for _, d := range c.r.desks {
		for l, lab := range c.r.labels {
			want, ok := c.truthOf(l)
			if !ok || lab.Code == "" {
				continue
			}
			if _, holds := c.desks[d.idx].Codes[lab.Code]; !holds {
				continue
			}
			got, err := d.db.OrderParcel(ctx, lab.Code)
			if err != nil {
				return fmt.Errorf("desk %s: the order of %s: %w", deskName(d.idx), lab.Code, err)
			}
			root := c.r.labels[c.root(l)].Code
			_, holdsRoot := c.desks[d.idx].Codes[root]
			switch {
			case got == nil && holdsRoot && c.mustHold(d.idx, lab.Code):
				c.fail(InvOrders, l, "desk %s holds %s (and its original) but names no order; want %s", deskName(d.idx), c.name(l), want)
			case got != nil && (got.Number != want.Number || got.Customer != want.Customer || got.Parcel != want.Parcel || got.Parcels != want.Parcels):
				c.fail(InvOrders, l, "desk %s names %s as order %s · %s · parcel %d of %d; want %s", deskName(d.idx), c.name(l), got.Number, got.Customer, got.Parcel, got.Parcels, want)
			}
		}
		for _, f := range orderFiles {
			for _, o := range f {
				var n int
				if err := d.db.SQL().QueryRowContext(ctx, `SELECT count(*) FROM codes WHERE ref = ? AND station_id = ? AND (entitlement = '' OR entitlement = code)`, o.Number, deskName(d.idx)).Scan(&n); err != nil {
					return err
				}
				if n > o.Parcels {
					c.fail(InvOrders, -1, "desk %s holds %d labels of its letter for order %s of %d parcels", deskName(d.idx), n, o.Number, o.Parcels)
				}
			}
		}
	}
	return nil
}

// ordersScanned: what a desk named when its clerk scanned an order's
// label is the order's parcel (or nothing, when the desk did not know the
// order yet).
func (c *checker) ordersScanned() {
	for _, v := range c.r.verdicts {
		want, ok := c.truthOf(v.Label)
		if v.Order == nil {
			continue
		}
		if !ok {
			c.fail(InvOrders, v.Label, "desk %s named %s, of no order, as order %s parcel %d of %d at g%02d", deskName(v.Desk), c.name(v.Label), v.Order.Number, v.Order.Parcel, v.Order.Parcels, v.Group+1)
			continue
		}
		if o := v.Order; o.Number != want.Number || o.Customer != want.Customer || o.Parcel != want.Parcel || o.Parcels != want.Parcels {
			c.fail(InvOrders, v.Label, "desk %s's scan at g%02d named %s as order %s · %s · parcel %d of %d; want %s", deskName(v.Desk), v.Group+1, c.name(v.Label), o.Number, o.Customer, o.Parcel, o.Parcels, want)
		}
	}
}

// orderStats is what the orders did, for the run's figures ("" with none).
func (r *run) orderStats() string {
	if !r.cfg.on(TopoOrders) {
		return ""
	}
	issued, already, named := 0, 0, 0
	for _, im := range r.topo.imports {
		issued += len(im.Issued)
		already += len(im.Already)
	}
	for _, v := range r.verdicts {
		if v.Order != nil {
			named++
		}
	}
	return fmt.Sprintf("%d order imports (%d orders issued, %d named as issued before), %d scans naming the parcel, ", len(r.topo.imports), issued, already, named)
}
