package faultsim

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"qrdesk/app"
	"qrdesk/cli"
	"qrdesk/store"
)

// topoRecords are what the topology's steps did, for the checker.
type topoRecords struct {
	closes        []closeRecord
	deskBackups   map[int]string // desk backup number → file
	deskRestores  []deskRestoreRecord
	removed       map[int]time.Time // desk → when its clerk was removed (the process's clock)
	removedIn     map[int]int       // desk → the group its clerk was removed in
	unsyncedIssue []string          // issues a restored desk made before it synced again
	rehires       []rehireRecord
	serverBackups map[int]int // server backup number → the group it was taken in
	moves         []moveRecord
	imports       []importRecord        // ImportOrder steps (orders.go)
	orderTruth    map[string]orderTruth // code → the order parcel it is
}

// moveRecord is one move of a desk the server made: the desk, the group
// and the site (an identity) it was moved to.
type moveRecord struct {
	Group, Desk int
	Site        string
}

// closeRecord is one day close: the closing desk's site on the server and
// the server's day when it began, who closed it and when, and the expire
// events it made.
type closeRecord struct {
	Group, Desk int
	Site, Day   string // Day as a label carries it (YYMMDD)
	// DeskSite is the site the desk knew it was in (its last enrolment):
	// its close's expiries name it (protocol.Event.Site), maybe by a name
	// the site had before a rename. Site and DeskSite are identities.
	DeskSite string
	Operator string
	Began    time.Time // the process's clock
	Events   []string  // the close's expire events (the desk's outbox)
}

// rehireRecord is one Rehire step: the desk removed its clerk offline, and
// the administrator removed the clerk and added it again after that.
type rehireRecord struct {
	Group, Desk int
	What        string // what came of it, for the checker's message
}

// deskRestoreRecord is one DeskRestore or LoseDB step.
type deskRestoreRecord struct {
	Group, Desk, From int
	Lost              bool   // LoseDB: the database file was lost first
	Recreated         bool   // LoseDB: the desk opened again on a new, empty database without a word
	Accepted          bool   // 'qrdesk restore' accepted the backup
	What              string // the command's answer
}

// setupTopology adds the sites and the staff list before the desks enrol.
func (r *run) setupTopology(ctx context.Context) error {
	r.topo.deskBackups = map[int]string{}
	r.topo.orderTruth = map[string]orderTruth{}
	r.topo.removed = map[int]time.Time{}
	r.topo.removedIn = map[int]int{}
	r.topo.serverBackups = map[int]int{}
	if r.cfg.on(TopoSites) {
		for _, s := range topologySites[1:] {
			if err := r.srv.addSite(ctx, s); err != nil {
				return fmt.Errorf("add site %s: %w", s, err)
			}
		}
	}
	if r.cfg.staffList() {
		for i := range r.cfg.Desks {
			if err := r.srv.staff(ctx, "add", clerk(i)); err != nil {
				return fmt.Errorf("add %s to the staff list: %w", clerk(i), err)
			}
		}
	}
	return nil
}

func clerk(d int) string { return "clerk " + deskName(d) }

// labelDay is a day as a label's code carries it (YYMMDD).
func labelDay(t time.Time) string { return t.Format("060102") }

// closeDay closes the day at desk d expiring its unused labels, its clerk
// the operator, and records the close (the checker's closeRecord) with
// the site the closing desk has on the server, the one the desk knows, the
// server's day, and the expire events the close made.
func (r *run) closeDay(ctx context.Context, g int, d *desk) (string, error) {
	rec := closeRecord{Group: g, Desk: d.idx, Day: labelDay(time.Now()), Operator: clerk(d.idx)}
	rec.Site, _ = r.srv.stationSite(ctx, d.serverName)
	if st, err := d.db.ServerState(ctx); err == nil && st.Sites != nil {
		rec.DeskSite = siteIdentity(st.Sites.Site)
	}
	before, err := d.expireEvents(ctx)
	if err != nil {
		return "", err
	}
	rec.Began = time.Now()
	dc, closeErr := d.svc.CloseDay(ctx, app.CloseDayRequest{ExpireUnused: true, Operator: rec.Operator})
	after, err := d.expireEvents(ctx)
	if err != nil {
		return "", err
	}
	for id := range after {
		if !before[id] {
			rec.Events = append(rec.Events, id)
		}
	}
	slices.Sort(rec.Events)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.topo.closes = append(r.topo.closes, rec)
	if closeErr != nil {
		return "refused: " + app.ErrorMessage(closeErr), nil
	}
	r.closes++
	r.closeExp += dc.ExpiredNow
	return fmt.Sprintf("closed %s, %d unused labels expired", dc.Figures.Date, dc.ExpiredNow), nil
}

// topoStep runs one of the topology's steps; the error is the harness's.
func (r *run) topoStep(ctx context.Context, g, i int, d *desk, s Step) (string, error) {
	lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	switch s.Kind {
	case MoveDesk:
		site := topologySites[s.Site]
		name, err := r.srv.moveStation(lctx, d.serverName, site)
		if err != nil {
			return "refused: " + oneLine(err), nil
		}
		d.site = site
		r.mu.Lock()
		r.topo.moves = append(r.topo.moves, moveRecord{Group: g, Desk: d.idx, Site: site})
		r.mu.Unlock()
		if name != site {
			return "ok (site " + name + " now)", nil
		}
		return "ok", nil
	case IssueMore:
		return r.issueMore(lctx, g, i, d, s)
	case DeskBackup:
		path := filepath.Join(r.cfg.Dir, fmt.Sprintf("desk-%s-backup-%d.db", deskName(d.idx), s.Backup))
		if err := d.svc.Backup(lctx, path); err != nil {
			return "", fmt.Errorf("desk %s backup: %w", deskName(d.idx), err)
		}
		r.mu.Lock()
		r.topo.deskBackups[s.Backup] = path
		r.mu.Unlock()
		return "ok", nil
	case DeskRestore:
		return r.deskRestore(lctx, g, d, s, false)
	case LoseDB:
		return r.deskRestore(lctx, g, d, s, true)
	case ClockDays:
		d.skew.Store(int64(s.Skew))
		d.zone.Store(int64(s.Zone))
		return "ok (the desk's today is " + d.now().Format(app.DateLayout) + ")", nil
	case Expire:
		n, err := d.svc.Expire(lctx)
		if err != nil {
			return "refused: " + app.ErrorMessage(err), nil
		}
		return fmt.Sprintf("%d labels expired", n), nil
	case StaffRemove:
		d.proxy.setMode(Mode{Kind: Refuse})
		if err := r.srv.staff(lctx, "remove", clerk(d.idx)); err != nil {
			return "", fmt.Errorf("remove %s: %w", clerk(d.idx), err)
		}
		r.mu.Lock()
		r.topo.removed[d.idx] = time.Now()
		r.topo.removedIn[d.idx] = g
		r.mu.Unlock()
		return "ok (the desk is offline)", nil
	case RenameSite:
		was, err := r.srv.renameSite(lctx, topologySites[s.Site], s.Name)
		switch {
		case err != nil:
			return "refused: " + oneLine(err), nil
		case was == s.Name:
			return "named so already (a server restore brought the name back)", nil
		}
		return "ok (was " + was + ")", nil
	case StaffClose:
		return r.staffClose(lctx, g, d)
	case Rehire:
		return r.rehire(lctx, g, d)
	case ImportOrder:
		return r.importOrders(lctx, g, i, d, s)
	}
	return "", fmt.Errorf("unknown topology step kind %d", s.Kind)
}

// issueMore issues s.Count labels at the desk by its clock; they take the
// universe's indexes s.New ….
func (r *run) issueMore(ctx context.Context, g, i int, d *desk, s Step) (string, error) {
	req := app.IssueRequest{Count: s.Count, Operator: clerk(d.idx)}
	if s.Tomorrow {
		req.Date = d.now().AddDate(0, 0, 1).Format(app.DateLayout)
	}
	unsynced := d.unsynced.Load()
	_, codes, err := d.svc.Issue(ctx, req)
	if err != nil {
		return "refused: " + app.ErrorMessage(err), nil
	}
	var names []string
	for j, c := range codes {
		rec, err := d.db.Lookup(ctx, c)
		if err != nil {
			return "", err
		}
		l := s.New + j
		r.mu.Lock()
		r.labels[l] = label{Name: r.plan.name(l), Code: c.String(), Desk: d.idx, ExpireAt: rec.ExpireAt, Of: -1}
		r.byCode[c.String()] = l
		r.actions = append(r.actions, action{Group: g, Step: i, Desk: d.idx, Label: l, Kind: IssueMore, Result: "issued " + c.String()})
		r.mu.Unlock()
		names = append(names, r.plan.name(l)+" "+c.String())
	}
	if unsynced {
		r.mu.Lock()
		r.topo.unsyncedIssue = append(r.topo.unsyncedIssue, fmt.Sprintf("desk %s issued %s at g%02d, restored from a backup and not synced since", deskName(d.idx), strings.Join(names, ", "), g+1))
		r.mu.Unlock()
	}
	return "issued " + strings.Join(names, ", "), nil
}

// deskRestore closes the desk's database and runs 'qrdesk restore' with
// desk backup s.Backup; with lost, the database file is lost first and
// the desk opened again ('qrdesk stats'), as a clerk would, and then
// restored. Another desk's backup accepted (a defect) is undone at once,
// the desk's own database put back, so the rest of the run means what it
// did; the checker reports the acceptance (InvRefusals).
func (r *run) deskRestore(ctx context.Context, g int, d *desk, s Step, lost bool) (string, error) {
	r.mu.Lock()
	backup, ok := r.topo.deskBackups[s.Backup]
	r.mu.Unlock()
	if !ok {
		return "", fmt.Errorf("no desk backup %d", s.Backup)
	}
	remote := d.svc.Remote
	d.db.Close()
	rec := deskRestoreRecord{Group: g, Desk: d.idx, From: s.From, Lost: lost}
	var out []string
	if lost {
		for _, suffix := range []string{"", "-wal", "-shm"} {
			if err := os.Rename(d.path+suffix, d.path+suffix+".lost"); err != nil && !errors.Is(err, os.ErrNotExist) {
				return "", err
			}
		}
		code, text := r.cli(ctx, d, "stats")
		rec.Recreated = code == 0
		if rec.Recreated {
			out = append(out, "opened again on a new database without a word")
		} else {
			out = append(out, "opening refused: "+text)
		}
	}
	code, text := r.cli(ctx, d, "restore", "--json", backup)
	rec.Accepted = code == 0
	rec.What = text
	switch {
	case !rec.Accepted:
		out = append(out, "restore refused: "+text)
	case s.From != d.idx:
		var res struct{ Previous string }
		if err := json.Unmarshal([]byte(text), &res); err != nil || res.Previous == "" {
			return "", fmt.Errorf("desk %s restore: no previous database in %q", deskName(d.idx), text)
		}
		if err := putBack(res.Previous, d.path); err != nil {
			return "", fmt.Errorf("desk %s: put its own database back: %w", deskName(d.idx), err)
		}
		out = append(out, "restore accepted; its own database put back")
	default:
		out = append(out, "restored")
		d.unsynced.Store(true)
	}
	db, err := store.Open(ctx, d.path)
	if err != nil {
		return "", fmt.Errorf("desk %s: open after the restore: %w", deskName(d.idx), err)
	}
	d.attach(db, remote)
	if rec.Recreated && !rec.Accepted {
		// A new, empty database and no restore: configured again as this
		// desk, as its clerk would.
		if _, err := d.svc.UpdateSettings(ctx, map[string]string{
			"station_id": deskName(d.idx), "station_name": d.name, "serial_digits": "4", "configured": "true",
		}, "faultsim"); err != nil {
			return "", err
		}
	}
	r.mu.Lock()
	r.topo.deskRestores = append(r.topo.deskRestores, rec)
	r.mu.Unlock()
	return strings.Join(out, "; "), nil
}

// cli runs the desk's command line on its database and the key file, at
// the desk's clock: the exit code and what it wrote, on one line.
func (r *run) cli(ctx context.Context, d *desk, args ...string) (int, string) {
	var buf bytes.Buffer
	args = append([]string{args[0], "--db", d.path, "--key-file", r.keyFile}, args[1:]...)
	code := cli.Main(ctx, args, cli.Env{Stdout: &buf, Stderr: &buf, Getenv: func(string) string { return "" }, Now: d.now, Stdin: strings.NewReader("")})
	return code, strings.TrimSpace(strings.ReplaceAll(buf.String(), "\n", " "))
}

// putBack puts a desk's database file, saved by 'qrdesk restore', back in
// place (and no WAL beside it).
func putBack(saved, path string) error {
	for _, suffix := range []string{"-wal", "-shm"} {
		if err := os.Remove(path + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return copyFile(saved, path)
}
