package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// Report is what a run measured (the --json output).
type Report struct {
	Server      string  `json:"server"`
	Engine      string  `json:"engine,omitempty"` // sqlite or postgres, from --db
	Desks       int     `json:"desks"`
	Rate        float64 `json:"rate_target"` // scans a second asked for
	SyncS       float64 `json:"sync_s"`
	OfflineFrac float64 `json:"offline_frac"`
	DoubleFrac  float64 `json:"double_frac"`
	WindowS     float64 `json:"window_s"` // how long scans were sent
	DrainS      float64 `json:"drain_s"`  // then, until every desk had uploaded and caught up

	ScansPerS       float64 `json:"scans_per_s"`
	RedemptionsPerS float64 `json:"redemptions_per_s"` // labels redeemed, online or uploaded, a second of the window

	Sites    sitesReport `json:"sites"`
	Online   latency     `json:"online_latency"`
	Converge lagReport   `json:"convergence_lag"`
	Counts   stats       `json:"counts"`
	Feed     feedReport  `json:"feed"`

	ServerProc *procReport  `json:"server_process,omitempty"`
	Postgres   *procReport  `json:"postgres_processes,omitempty"`
	LoadCPU    float64      `json:"load_tool_cpu_percent"` // this process, % of one core
	LoadRSSMB  float64      `json:"load_tool_rss_max_mb"`  // this process
	LoadFDsMax int          `json:"load_tool_fds_max"`     // this process's open files
	LoadFDLim  string       `json:"load_tool_fd_limit,omitempty"`
	MachineCPU float64      `json:"machine_busy_percent"`   // all cores, every process
	OthersCPU  float64      `json:"others_cpu_percent"`     // other processes of the machine, % of one core
	LoadAvg    string       `json:"load_average,omitempty"` // /proc/loadavg when scanning began
	Cores      int          `json:"cores"`
	Database   *dbReport    `json:"database,omitempty"`
	Floor      *floorReport `json:"pgbench_floor,omitempty"`

	Problems      []string `json:"problems"` // failed checks: exit code 1
	Warnings      []string `json:"warnings,omitempty"`
	WarningsTotal int      `json:"warnings_total"`
}

// sitesReport is how the desks were spread over the deployment's sites.
type sitesReport struct {
	Count     int     `json:"count"`
	DesksMin  int     `json:"desks_min"` // desks of the smallest site
	DesksMax  int     `json:"desks_max"`
	DesksMean float64 `json:"desks_mean"`
	// CrossSiteFrac is the share of scans asked to be of another site's
	// label (0 with one site); CrossSiteOffline the deployment's rule for
	// one scanned offline, as the desks' enrolments announced it.
	CrossSiteFrac    float64 `json:"cross_site_frac"`
	CrossSiteOffline string  `json:"cross_site_offline,omitempty"`
}

type latency struct {
	Answers int     `json:"answers"`
	P50Ms   float64 `json:"p50_ms"`
	P99Ms   float64 `json:"p99_ms"`
	MaxMs   float64 `json:"max_ms"`
}

type lagReport struct {
	Redemptions int     `json:"redemptions"` // online redemptions measured
	DesksMean   float64 `json:"desks_mean"`  // following desks each waited for, on average
	P50Ms       float64 `json:"p50_ms"`
	P99Ms       float64 `json:"p99_ms"`
	MaxMs       float64 `json:"max_ms"`
	NotArrived  int     `json:"not_arrived"` // at some desk online to the end
}

type feedReport struct {
	Changes   int64 `json:"changes"`   // new feed entries during the run
	Requests  int64 `json:"requests"`  // feed requests of all desks
	Delivered int64 `json:"delivered"` // changes received, all desks together
	// PerChange is Delivered / Changes; DesksOfItsSite the desks of the
	// site each change went to, on average: a change delivered once to
	// each of them makes the two equal (every desk would be Desks).
	PerChange      float64 `json:"delivered_per_change"`
	DesksOfItsSite float64 `json:"desks_of_its_site"`
	// What the desks learned from the feed, by kind of change (code,
	// redeem, conflict, …), all desks together.
	ByKind map[string]int `json:"by_kind"`
}

type procReport struct {
	PID        int     `json:"pid"`
	CPUPercent float64 `json:"cpu_percent"` // % of one core over the window
	RSSMaxMB   float64 `json:"rss_max_mb,omitempty"`
	RSSEndMB   float64 `json:"rss_end_mb,omitempty"`
	FDsMax     int     `json:"fds_max,omitempty"`
	FDLimit    string  `json:"fd_limit,omitempty"`
	ThreadsMax int     `json:"threads_max,omitempty"`
}

type dbReport struct {
	Engine           string  `json:"engine"`
	StartBytes       int64   `json:"start_bytes"`
	EndBytes         int64   `json:"end_bytes"`
	DiskStartBytes   int64   `json:"disk_start_bytes,omitempty"` // SQLite: file + WAL
	DiskEndBytes     int64   `json:"disk_end_bytes,omitempty"`
	Events           int     `json:"events"`
	PerMillionEvents float64 `json:"bytes_per_million_events"`
}

func (l *load) report(window time.Duration, scanned int, drained time.Duration, walk *feedWalk, w *procWatch) *Report {
	cfg := l.cfg
	l.mu.Lock()
	defer l.mu.Unlock()
	r := &Report{Server: cfg.server, Desks: len(l.desks), Rate: cfg.rate, SyncS: cfg.sync.Seconds(),
		OfflineFrac: cfg.offlineFrac, DoubleFrac: cfg.doubleFrac,
		WindowS: round1(window.Seconds()), DrainS: round1(drained.Seconds()), Counts: l.stats,
		Problems: slices.Clone(l.problems), Warnings: slices.Clone(l.warnings), WarningsTotal: l.nWarnings, Cores: w.cores}
	if r.Problems == nil {
		r.Problems = []string{}
	}
	if cfg.db != "" {
		r.Engine = "sqlite"
		if IsPostgres(cfg.db) {
			r.Engine = "postgres"
		}
	}
	s := l.stats
	r.ScansPerS = round1(float64(s.Scans) / window.Seconds())
	r.RedemptionsPerS = round1(float64(s.OnlineRedeemed+s.OfflineRedeemed) / window.Seconds())
	lat := slices.Clone(l.latencies)
	slices.Sort(lat)
	r.Online = latency{Answers: len(lat), P50Ms: percentile(lat, 0.50), P99Ms: percentile(lat, 0.99)}
	if len(lat) > 0 {
		r.Online.MaxMs = ms(lat[len(lat)-1])
	}
	r.Sites = sitesReport{Count: len(l.sites), DesksMin: len(l.desks), CrossSiteFrac: l.crossFrac}
	for _, st := range l.sites {
		r.Sites.DesksMin, r.Sites.DesksMax = min(r.Sites.DesksMin, len(st.desks)), max(r.Sites.DesksMax, len(st.desks))
	}
	if len(l.sites) > 0 {
		r.Sites.DesksMean = round1(float64(len(l.desks)) / float64(len(l.sites)))
	}
	if len(l.desks) > 0 {
		r.Sites.CrossSiteOffline = l.desks[0].crossOffline
	}
	var c convergence
	if walk != nil { // nil: the feed could not be read back (a problem says why)
		c = l.convergence(walk.positions)
		// Nothing lost: every redemption the server acknowledged is in
		// its label's site's feed (a copy in another site's is not enough).
		for k, used := range l.usedBy {
			for _, u := range used {
				if _, ok := walk.positions[k][u.code]; !ok {
					r.Counts.Lost++
				}
			}
		}
		if r.Counts.Lost > 0 {
			r.Problems = append(r.Problems, fmt.Sprintf("%d of %d redemptions the server acknowledged are missing from their site's feed", r.Counts.Lost, r.Counts.Acknowledged))
		}
	}
	r.Converge = lagReport{Redemptions: len(c.lags), DesksMean: c.desksMean, NotArrived: c.notArrived,
		P50Ms: percentile(c.lags, 0.50), P99Ms: percentile(c.lags, 0.99)}
	if len(c.lags) > 0 {
		r.Converge.MaxMs = ms(c.lags[len(c.lags)-1])
	}
	if c.notArrived > 0 {
		r.Problems = append(r.Problems, fmt.Sprintf("%d online redemptions never reached a desk that followed the feed to the end", c.notArrived))
	}
	if c.noPosition > 0 {
		r.Problems = append(r.Problems, fmt.Sprintf("%d online redemptions are missing from the feed", c.noPosition))
	}
	r.Feed = feedReport{Requests: l.feedRequests.Load(), Delivered: l.feedDelivered.Load(), ByKind: map[string]int{}}
	if walk != nil && walk.changes > 0 {
		r.Feed.Changes = int64(walk.changes)
		r.Feed.PerChange = round1(float64(r.Feed.Delivered) / float64(walk.changes))
		r.Feed.DesksOfItsSite = round1(float64(walk.deliveries) / float64(walk.changes))
	}
	for _, d := range l.desks {
		for kind, n := range d.learned {
			r.Feed.ByKind[kind] += n
		}
	}

	// The checks: nothing lost, every answer as expected.
	if s.Accepted+s.Waiting != s.Queued {
		r.Problems = append(r.Problems, fmt.Sprintf("%d events decided offline: %d accepted by the server, %d still waiting, %d lost or refused", s.Queued, s.Accepted, s.Waiting, s.Queued-s.Accepted-s.Waiting))
	}
	if s.Conflicts != s.DoubleOffline-s.WaitingDouble {
		r.Problems = append(r.Problems, fmt.Sprintf("%d conflicts, but %d double uses were decided offline and uploaded", s.Conflicts, s.DoubleOffline-s.WaitingDouble))
	}
	if s.Scans == 0 {
		r.Problems = append(r.Problems, "no scan was made")
	}

	secs := w.t1.Sub(w.t0).Seconds()
	if w.serverPID != 0 {
		r.ServerProc = &procReport{PID: w.serverPID, CPUPercent: w.cpuPercent(w.server0, w.server1),
			RSSMaxMB: mb(w.rssMax), RSSEndMB: mb(w.rssEnd), FDsMax: w.fdsMax, FDLimit: w.fdLimit, ThreadsMax: w.threadsMax}
	}
	if w.pgPID != 0 && w.pg1 > 0 {
		r.Postgres = &procReport{PID: w.pgPID, CPUPercent: w.cpuPercent(w.pg0, w.pg1)}
	}
	r.LoadCPU = w.cpuPercent(w.self0, w.self1)
	r.LoadRSSMB, r.LoadFDsMax, r.LoadFDLim = mb(w.selfRSSMax), w.selfFDsMax, w.selfFDLimit
	if dt := w.total1 - w.total0; dt > 0 && secs > 0 {
		r.MachineCPU = round1(float64(w.busy1-w.busy0) / float64(dt) * 100)
		others := r.MachineCPU*float64(w.cores) - r.LoadCPU
		if r.ServerProc != nil {
			others -= r.ServerProc.CPUPercent
		}
		if r.Postgres != nil {
			others -= r.Postgres.CPUPercent
		}
		r.OthersCPU = round1(max(others, 0))
	}
	r.LoadAvg = w.loadAvg
	return r
}

func (r *Report) setDatabase(start, end dbInfo) {
	s := r.Counts
	events := s.OnlineRedeemed + s.OnlineAlreadyUsed + s.Recorded
	r.Database = &dbReport{Engine: start.engine, StartBytes: start.bytes, EndBytes: end.bytes,
		DiskStartBytes: start.disk, DiskEndBytes: end.disk, Events: events}
	if events > 0 {
		r.Database.PerMillionEvents = float64(end.bytes-start.bytes) / float64(events) * 1e6
	}
}

func mb(b int64) float64 { return round1(float64(b) / (1 << 20)) }

func (r *Report) writeJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// Targets of the load test (docs/load-test.md).
const (
	targetOnlineP99Ms      = 50
	targetConvergenceP99Ms = 10_000 // two sync intervals
	// Within a site (issue 21): the site's desks follow its feed.
	targetSiteConvergenceP99Ms = 1_000
)

func met(ok bool) string {
	if ok {
		return "met"
	}
	return "MISSED"
}

func (r *Report) writeText(w io.Writer) error {
	var b strings.Builder
	s := r.Counts
	engine := r.Engine
	if engine == "" {
		engine = "database not given"
	}
	sites := ""
	if r.Sites.Count > 1 {
		sites = fmt.Sprintf(" in %d sites, cross-site scans %g%%", r.Sites.Count, r.Sites.CrossSiteFrac*100)
	}
	fmt.Fprintf(&b, "qrdesk-load: %d desks%s against %s (%s), %g scans/s asked for %gs, sync every %gs, offline %g%% of the time, double uses %g%%\n",
		r.Desks, sites, r.Server, engine, r.Rate, r.WindowS, r.SyncS, r.OfflineFrac*100, r.DoubleFrac*100)
	refused := ""
	if s.CrossOfflineRefused > 0 {
		refused = fmt.Sprintf(", %d refused offline (another site's label)", s.CrossOfflineRefused)
	}
	fmt.Fprintf(&b, "scans            %d (%.1f/s): %d decided online, %d decided offline (%d after an online timeout)%s; %d double uses\n",
		s.Scans, r.ScansPerS, s.OnlineRedeemed+s.OnlineAlreadyUsed+s.OnlineRefused, s.DecidedOffline, s.OnlineTimeouts, refused, s.DoubleUses)
	fmt.Fprintf(&b, "redemptions      %d (%.1f/s): %d online, %d uploaded after deciding offline\n",
		s.OnlineRedeemed+s.OfflineRedeemed, r.RedemptionsPerS, s.OnlineRedeemed, s.OfflineRedeemed)
	if f := r.Floor; f != nil {
		fmt.Fprintf(&b, "pgbench floor    %.0f TPS, %d clients, %d bare redemption transactions, mean %s (same cluster, before the scans): ours %.0f online/s = %.3g× the floor\n",
			f.TPS, f.Clients, f.Transactions, fmtMs(f.LatencyAvgMs), float64(s.OnlineRedeemed)/r.WindowS, f.Ratio)
	}
	fmt.Fprintf(&b, "online latency   p50 %s  p99 %s  max %s over %d answers   target p99 ≤ %d ms: %s\n",
		fmtMs(r.Online.P50Ms), fmtMs(r.Online.P99Ms), fmtMs(r.Online.MaxMs), r.Online.Answers, targetOnlineP99Ms, met(r.Online.P99Ms <= targetOnlineP99Ms && s.OnlineTimeouts == 0))
	within, target := "", int64(targetConvergenceP99Ms)
	if r.Sites.Count > 1 {
		within, target = " of its site", targetSiteConvergenceP99Ms
	}
	fmt.Fprintf(&b, "convergence lag  p50 %s  p99 %s  max %s over %d redemptions (%.1f following desks%s each)   target p99 ≤ %s: %s\n",
		fmtMs(r.Converge.P50Ms), fmtMs(r.Converge.P99Ms), fmtMs(r.Converge.MaxMs), r.Converge.Redemptions, r.Converge.DesksMean, within, fmtMs(float64(target)),
		met(r.Converge.Redemptions > 0 && r.Converge.P99Ms <= float64(target) && r.Converge.NotArrived == 0))
	fmt.Fprintf(&b, "nothing lost     %d redemptions acknowledged by the server, %d missing from their site's feed\n", s.Acknowledged, s.Lost)
	fmt.Fprintf(&b, "offline events   %d queued, %d accepted, %d not accepted, %d still waiting; conflicts %d = double uses decided offline %d; online double uses answered already_used %d\n",
		s.Queued, s.Accepted, s.NotAccepted, s.Waiting, s.Conflicts, s.DoubleOffline, s.OnlineAlreadyUsed)
	if r.Sites.Count > 1 {
		offline := r.Sites.CrossSiteOffline
		if offline == "" {
			offline = "not announced"
		}
		fmt.Fprintf(&b, "sites            %d sites of %d to %d desks (mean %.1f); offline rule for another site's label: %s\n",
			r.Sites.Count, r.Sites.DesksMin, r.Sites.DesksMax, r.Sites.DesksMean, offline)
		fmt.Fprintf(&b, "cross-site scans %d: online %d decided by the server (%d answers named the label's site), offline %d decided alone and %d refused; %d became conflicts\n",
			s.CrossSite, s.CrossOnline, s.CrossOnlineNamed, s.CrossOfflineDecided, s.CrossOfflineRefused, s.CrossConflicts)
	}
	fmt.Fprintf(&b, "feed             %d new changes, %d delivered to desks in %d requests: %.1f per change, the desks of its site %.1f, all desks %d; %d changes of another site's label received\n",
		r.Feed.Changes, r.Feed.Delivered, r.Feed.Requests, r.Feed.PerChange, r.Feed.DesksOfItsSite, r.Desks, s.ForeignChanges)
	fmt.Fprintf(&b, "syncs            %d (%d failed), %d batches issued during the run\n", s.Syncs, s.SyncErrors, s.TopUpBatches)
	if p := r.ServerProc; p != nil {
		fmt.Fprintf(&b, "server           pid %d: CPU %.0f%% of one core, RSS max %.0f MB (end %.0f MB), %d threads, %d open files max (limit %s)\n",
			p.PID, p.CPUPercent, p.RSSMaxMB, p.RSSEndMB, p.ThreadsMax, p.FDsMax, p.FDLimit)
	} else {
		fmt.Fprintf(&b, "server           not measured (give --server-pid)\n")
	}
	if p := r.Postgres; p != nil {
		fmt.Fprintf(&b, "postgres         pid %d and its backends: CPU %.0f%% of one core\n", p.PID, p.CPUPercent)
	}
	fmt.Fprintf(&b, "machine          %.0f%% busy of %d cores: this tool %.0f%% of one core, other processes %.0f%% (load average %s)\n", r.MachineCPU, r.Cores, r.LoadCPU, r.OthersCPU, r.LoadAvg)
	fmt.Fprintf(&b, "this tool        RSS max %.0f MB, %d open files max (limit %s)\n", r.LoadRSSMB, r.LoadFDsMax, r.LoadFDLim)
	if d := r.Database; d != nil {
		fmt.Fprintf(&b, "database         %s %s → %s: %s for %d events = %s per million events\n",
			d.Engine, fmtBytes(float64(d.StartBytes)), fmtBytes(float64(d.EndBytes)), fmtBytes(float64(d.EndBytes-d.StartBytes)), d.Events, fmtBytes(d.PerMillionEvents))
	}
	fmt.Fprintf(&b, "drain            %.1fs until every desk had uploaded and caught up\n", r.DrainS)
	if r.WarningsTotal > 0 {
		fmt.Fprintf(&b, "errors           %d (not failures), first: %s\n", r.WarningsTotal, strings.Join(r.Warnings, "; "))
	}
	if len(r.Problems) == 0 {
		fmt.Fprintf(&b, "checks           ok: no event lost, every answer as expected\n")
	} else {
		fmt.Fprintf(&b, "checks           FAILED:\n  %s\n", strings.Join(r.Problems, "\n  "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func fmtMs(x float64) string {
	if x >= 1000 {
		return fmt.Sprintf("%.2f s", x/1000)
	}
	return fmt.Sprintf("%.1f ms", x)
}

func fmtBytes(x float64) string {
	switch {
	case x >= 1<<30 || x <= -(1<<30):
		return fmt.Sprintf("%.2f GB", x/(1<<30))
	case x >= 1<<20 || x <= -(1<<20):
		return fmt.Sprintf("%.1f MB", x/(1<<20))
	case x >= 1<<10 || x <= -(1<<10):
		return fmt.Sprintf("%.1f kB", x/(1<<10))
	}
	return fmt.Sprintf("%.0f B", x)
}
