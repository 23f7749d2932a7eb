package main

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, for pg_database_size
	_ "modernc.org/sqlite"             // the "sqlite" driver, for the page count
)

// clockTicks is USER_HZ, the unit of the CPU times in /proc/PID/stat: 100
// on every Linux architecture Go builds for (sysconf would need cgo).
const clockTicks = 100

// procWatch measures the server (and PostgreSQL's) processes, this
// process and the whole machine over the scanning window, from /proc.
type procWatch struct {
	log              *slog.Logger
	serverPID, pgPID int
	serverErr, pgErr error
	t0, t1           time.Time
	server0, server1 int64 // CPU ticks
	pg0, pg1         int64
	self0, self1     int64
	busy0, busy1     int64 // the machine's busy and total ticks, all cores
	total0, total1   int64
	mu               sync.Mutex
	rssMax, rssEnd   int64 // bytes
	fdsMax           int
	threadsMax       int
	selfRSSMax       int64 // this process: bytes
	selfFDsMax       int
	selfFDLimit      string
	stop             chan struct{}
	done             chan struct{}
	fdLimit          string
	loadAvg          string
	cores            int
}

func newProcWatch(cfg config, log *slog.Logger) *procWatch {
	w := &procWatch{log: log, serverPID: cfg.serverPID, pgPID: cfg.pgPID}
	if w.serverPID == 0 {
		w.serverPID, w.serverErr = listenerPID(cfg.server)
	}
	if w.pgPID == 0 && (strings.HasPrefix(cfg.db, "postgres://") || strings.HasPrefix(cfg.db, "postgresql://")) {
		w.pgPID, w.pgErr = listenerPID(cfg.db)
	}
	if w.serverPID != 0 {
		w.fdLimit = openFilesLimit(w.serverPID)
		if _, err := cpuTicks(w.serverPID); err != nil {
			w.serverErr, w.serverPID = err, 0
		}
	}
	if w.serverErr != nil {
		log.Warn("the server's CPU and memory are not measured", "error", w.serverErr.Error())
	}
	w.cores = countCores()
	w.selfFDLimit = openFilesLimit(os.Getpid())
	return w
}

// begin starts the window: CPU readings, and memory sampled twice a second.
func (w *procWatch) begin() {
	w.t0 = time.Now()
	w.server0, _ = cpuTicks(w.serverPID)
	w.pg0, _ = postgresTicks(w.pgPID)
	w.self0, _ = cpuTicks(os.Getpid())
	w.busy0, w.total0, _ = machineTicks()
	if data, err := os.ReadFile("/proc/loadavg"); err == nil {
		w.loadAvg = strings.Join(strings.Fields(string(data))[:3], " ")
	}
	w.stop, w.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(w.done)
		t := time.NewTicker(500 * time.Millisecond)
		defer t.Stop()
		for {
			w.sample()
			select {
			case <-w.stop:
				return
			case <-t.C:
			}
		}
	}()
}

func (w *procWatch) end() {
	w.t1 = time.Now()
	w.server1, _ = cpuTicks(w.serverPID)
	w.pg1, _ = postgresTicks(w.pgPID)
	w.self1, _ = cpuTicks(os.Getpid())
	w.busy1, w.total1, _ = machineTicks()
	close(w.stop)
	<-w.done
	w.sample()
}

func (w *procWatch) sample() {
	selfRSS, _ := statusFields(os.Getpid())
	selfFDs := countFDs(os.Getpid())
	w.mu.Lock()
	w.selfRSSMax, w.selfFDsMax = max(w.selfRSSMax, selfRSS), max(w.selfFDsMax, selfFDs)
	w.mu.Unlock()
	if w.serverPID == 0 {
		return
	}
	rss, threads := statusFields(w.serverPID)
	fds := countFDs(w.serverPID)
	w.mu.Lock()
	w.rssMax, w.rssEnd = max(w.rssMax, rss), rss
	w.fdsMax, w.threadsMax = max(w.fdsMax, fds), max(w.threadsMax, threads)
	w.mu.Unlock()
}

// cpuPercent is CPU time over the window in % of one core.
func (w *procWatch) cpuPercent(t0, t1 int64) float64 {
	secs := w.t1.Sub(w.t0).Seconds()
	if secs <= 0 {
		return 0
	}
	return round1(float64(t1-t0) / clockTicks / secs * 100)
}

// statFields returns the fields of /proc/PID/stat after the command name
// (which may hold spaces): [0] is the state, [1] the parent's id.
func statFields(pid int) ([]string, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, err
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	return strings.Fields(s[i+1:]), nil
}

// cpuTicks is a process's user and system time (fields 14 and 15).
func cpuTicks(pid int) (int64, error) {
	if pid == 0 {
		return 0, fmt.Errorf("no process")
	}
	f, err := statFields(pid)
	if err != nil || len(f) < 15 {
		return 0, fmt.Errorf("read /proc/%d/stat: %v", pid, err)
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return u + s, nil
}

// postgresTicks is the CPU time of PostgreSQL: the postmaster, the
// backends it reaped (its cutime and cstime) and those alive now.
func postgresTicks(pid int) (int64, error) {
	if pid == 0 {
		return 0, fmt.Errorf("no process")
	}
	f, err := statFields(pid)
	if err != nil || len(f) < 15 {
		return 0, fmt.Errorf("read /proc/%d/stat: %v", pid, err)
	}
	var total int64
	for _, k := range []int{11, 12, 13, 14} {
		v, _ := strconv.ParseInt(f[k], 10, 64)
		total += v
	}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cf, err := statFields(child)
		if err != nil || len(cf) < 15 || cf[1] != strconv.Itoa(pid) {
			continue
		}
		u, _ := strconv.ParseInt(cf[11], 10, 64)
		s, _ := strconv.ParseInt(cf[12], 10, 64)
		total += u + s
	}
	return total, nil
}

// machineTicks is the first line of /proc/stat: busy and total ticks of
// all cores (busy leaves out idle and iowait).
func machineTicks() (busy, total int64, err error) {
	f, err := os.Open("/proc/stat")
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		return 0, 0, fmt.Errorf("empty /proc/stat")
	}
	fields := strings.Fields(sc.Text())
	for i, v := range fields[1:] {
		n, _ := strconv.ParseInt(v, 10, 64)
		if i >= 8 { // guest time is already in user
			break
		}
		total += n
		if i != 3 && i != 4 {
			busy += n
		}
	}
	return busy, total, nil
}

func countCores() int {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	n := 0
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "cpu") && len(line) > 3 && line[3] >= '0' && line[3] <= '9' {
			n++
		}
	}
	return n
}

// statusFields reads VmRSS (bytes) and Threads from /proc/PID/status.
func statusFields(pid int) (rss int64, threads int) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		f := strings.Fields(v)
		if len(f) == 0 {
			continue
		}
		n, _ := strconv.ParseInt(f[0], 10, 64)
		switch k {
		case "VmRSS":
			rss = n * 1024 // kB
		case "Threads":
			threads = int(n)
		}
	}
	return rss, threads
}

func countFDs(pid int) int {
	entries, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return 0
	}
	return len(entries)
}

// openFilesLimit is the soft "Max open files" of a process.
func openFilesLimit(pid int) string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/limits", pid))
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "Max open files") {
			if f := strings.Fields(strings.TrimPrefix(line, "Max open files")); len(f) > 0 {
				return f[0]
			}
		}
	}
	return ""
}

// listenerPID finds the process listening on the port of a URL on this
// machine (/proc/net/tcp and tcp6, then the process holding that socket).
func listenerPID(rawURL string) (int, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return 0, err
	}
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443", "postgres": "5432", "postgresql": "5432"}[u.Scheme]
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return 0, fmt.Errorf("%s is not on this machine: give the process id", host)
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		return 0, fmt.Errorf("no port in %s", rawURL)
	}
	want := fmt.Sprintf(":%04X", p)
	inodes := map[string]bool{}
	for _, file := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		data, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) > 9 && strings.HasSuffix(f[1], want) && f[3] == "0A" { // 0A: LISTEN
				inodes["socket:["+f[9]+"]"] = true
			}
		}
	}
	if len(inodes) == 0 {
		return 0, fmt.Errorf("no process listens on port %d", p)
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/fd/*")
	for _, fd := range procs {
		if target, err := os.Readlink(fd); err == nil && inodes[target] {
			pid, _ := strconv.Atoi(strings.Split(fd, "/")[2])
			return pid, nil
		}
	}
	return 0, fmt.Errorf("the process listening on port %d is not visible here: give its id", p)
}

// dbInfo is the size of the server's database.
type dbInfo struct {
	engine string
	bytes  int64 // SQLite: pages in use; PostgreSQL: pg_database_size
	disk   int64 // SQLite: the file and its WAL on disk
}

func IsPostgres(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://")
}

func dbSize(ctx context.Context, db string) (dbInfo, error) {
	if db == "" {
		return dbInfo{}, fmt.Errorf("no --db given")
	}
	if IsPostgres(db) {
		conn, err := sql.Open("pgx", db)
		if err != nil {
			return dbInfo{}, err
		}
		defer conn.Close()
		var n int64
		err = conn.QueryRowContext(ctx, `SELECT pg_database_size(current_database())`).Scan(&n)
		return dbInfo{engine: "postgres", bytes: n}, err
	}
	info := dbInfo{engine: "sqlite"}
	for _, suffix := range []string{"", "-wal"} {
		if st, err := os.Stat(db + suffix); err == nil {
			info.disk += st.Size()
		}
	}
	// Pages in use, WAL included: the file alone lags behind checkpoints.
	conn, err := sql.Open("sqlite", "file:"+(&url.URL{Path: db}).EscapedPath()+"?mode=ro")
	if err != nil {
		return info, err
	}
	defer conn.Close()
	var pages, free, size int64
	if err := conn.QueryRowContext(ctx, `SELECT (SELECT page_count FROM pragma_page_count()), (SELECT freelist_count FROM pragma_freelist_count()), (SELECT page_size FROM pragma_page_size())`).Scan(&pages, &free, &size); err != nil {
		return info, err
	}
	info.bytes = (pages - free) * size
	return info, nil
}

// percentile of sorted durations, in milliseconds (nearest rank).
func percentile(sorted []time.Duration, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	i = max(0, min(i, len(sorted)-1))
	return ms(sorted[i])
}

func ms(d time.Duration) float64 { return round1(float64(d.Microseconds()) / 1000) }

func round1(x float64) float64 { return math.Round(x*10) / 10 }

// convergence is, for each online redemption, the time until the last desk
// of the label's site that followed the feed when it was answered (and
// still did when the change reached it) had the change, at its position in
// that site's feed (positions, by site); the deciding desk is left out.
// The other sites' desks never get that change: their feeds are theirs (a
// site whose desk redeemed another site's label gets a copy of its own,
// later in the sequence, which the label's site's desks never read).
type convergence struct {
	lags       []time.Duration // sorted
	notArrived int             // a desk online to the end never got it
	noPosition int             // the feed has no redemption of the label
	desksMean  float64         // desks waited for, on average
}

func (l *load) convergence(positions []map[string]int64) convergence {
	var c convergence
	var desks int
	for _, r := range l.online {
		pos, ok := positions[r.site][r.code]
		if !ok {
			c.noPosition++
			continue
		}
		var worst time.Duration
		eligible, lost := 0, false
		for _, d := range l.sites[r.site].desks {
			if d.i == r.desk {
				continue
			}
			p := d.periodAt(r.at)
			if p == nil {
				continue
			}
			k := sort.Search(len(d.receipts), func(k int) bool { return d.receipts[k].cur >= pos })
			if k == len(d.receipts) {
				lost = lost || !p.closed
				continue
			}
			at := d.receipts[k].at
			if p.closed && at > p.off {
				continue // it went offline first: it learns at its next sync
			}
			eligible++
			worst = max(worst, at-r.at)
		}
		switch {
		case lost:
			c.notArrived++
		case eligible > 0:
			c.lags = append(c.lags, worst)
			desks += eligible
		}
	}
	slices.Sort(c.lags)
	if len(c.lags) > 0 {
		c.desksMean = round1(float64(desks) / float64(len(c.lags)))
	}
	return c
}

// periodAt is the period in which the desk followed the feed at t, or nil.
func (d *desk) periodAt(t time.Duration) *period {
	for i := range d.periods {
		p := &d.periods[i]
		if p.on <= t && (!p.closed || t < p.off) {
			return p
		}
	}
	return nil
}
