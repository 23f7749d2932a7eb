package server

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"qrdesk/protocol"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"qrdesk/app"
	"qrdesk/central"
)

// Limits of a request.
const (
	MaxBody = 12 << 20 // a batch of 100,000 codes (8.7 MB of JSON) fits
	// RingHeader carries the station's key-ring id on every request.
	RingHeader = "X-Qrdesk-Key-Ring"
)

// API serves the /v1 HTTP+JSON API on a central.Store.
type API struct {
	Store central.Store
	// Feed, when set, is where the desks' download path reads (the feed
	// and the snapshot): a read replica of Store's database
	// (serverdb.Replica). Nil: Store.
	Feed central.FeedReader
	Log  *slog.Logger
	Now  func() time.Time
	// Metrics, when set, count requests and redemptions (metrics.go).
	Metrics *Metrics
	// Web serves every path the API does not (the dashboard), if set.
	Web http.Handler
	// Kinds are the event kinds this server decides and announces at
	// enrolment (nil: central.Kinds). An event of another kind is answered
	// "unsupported", alone. Tests name fewer to play an older server.
	Kinds []string
	// SnapshotPage is how many codes a snapshot page holds (0:
	// SnapshotPage); tests make it small to read snapshots of many pages.
	SnapshotPage int

	ring atomic.Value // the deployment's key-ring id once known: it never changes

	// oldDesksRefused: the roll-out window is closed, a protocol-1 desk is
	// refused on every request (olddesks.go).
	oldDesksRefused atomic.Bool

	tail     feedTail // the newest changes, for the desks that follow the feed
	stations stationCache
	versions deskVersions // what each desk last said it runs (deskversion.go)

	ackMu sync.Mutex
	acks  map[int64]central.FeedAck // station id → how far it read the feed, not yet stored

	// AccessLog says which requests the access log writes (accesslog.go);
	// "": AccessLogSampled.
	AccessLog AccessLog
	sampler   accessSampler

	probe     writeProbe // the readiness check's last write (ready.go)
	lastWrite lastWrite  // how the desks' last writes went (ready.go)
	ready     readiness  // what the readiness check last logged (ready.go)

}

// feed is where the desks' download path reads: Feed, or Store.
func (a *API) feed() central.FeedReader {
	if a.Feed != nil {
		return a.Feed
	}
	return a.Store
}

// HashToken is what the server stores of a station's bearer token.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// Handler returns the routes, with access logging.
func (a *API) Handler() http.Handler {
	a.tail.store = a.feed()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/health", a.health)
	mux.HandleFunc("GET /readyz", a.readyz)
	if a.Metrics != nil && !a.Metrics.Separate {
		mux.Handle("GET /metrics", a.Metrics)
	}
	mux.HandleFunc("POST /v1/enrol", a.station(a.enrol))
	mux.HandleFunc("POST /v1/batches", a.station(a.writes(a.batches)))
	mux.HandleFunc("POST /v1/redeem", a.cachedStation(a.writes(a.redeem)))
	mux.HandleFunc("POST /v1/events", a.station(a.writes(a.events)))
	mux.HandleFunc("GET /v1/changes", a.feedStation(a.changes))
	mux.HandleFunc("GET /v1/conflicts", a.station(a.conflicts))
	mux.HandleFunc("GET /v1/snapshot", a.station(a.snapshot))
	mux.HandleFunc("POST /v1/status", a.station(a.status))
	if a.Web != nil {
		mux.Handle("/", a.Web)
	}
	return a.accessLog(mux)
}

type statusWriter struct {
	http.ResponseWriter
	status int
	// writeFailed: the answer is the database refusing a write (a
	// *central.WriteFailure), counted in the metrics by its cause.
	writeFailed string
}

func (w *statusWriter) WriteHeader(code int) { w.status = code; w.ResponseWriter.WriteHeader(code) }

// accessLog writes one line per request: never the token or the body.
func (a *API) accessLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		w.Header().Set(app.ProtocolHeader, strconv.Itoa(app.Protocol))
		// The server's clock on every answer: desks measure theirs by it.
		if a.Now != nil {
			w.Header().Set(protocol.TimeHeader, strconv.FormatInt(a.Now().UnixMilli(), 10))
		}
		sw := &statusWriter{ResponseWriter: w, status: 200}
		next.ServeHTTP(sw, r)
		a.Metrics.observe(r.Pattern, sw.status, time.Since(start)) // the mux set r.Pattern
		if sw.writeFailed != "" {
			a.Metrics.writeFailed(r.Pattern, sw.writeFailed)
		}
		ok, skipped := a.sampler.admit(a.AccessLog, r.Pattern, sw.status, time.Now())
		if !ok {
			a.Metrics.accessLineSkipped(r.Pattern)
			return
		}
		attrs := []any{"method", r.Method, "path", r.URL.Path, "status", sw.status,
			"duration_ms", float64(time.Since(start).Microseconds()) / 1000, "remote", r.RemoteAddr}
		if skipped > 0 {
			attrs = append(attrs, "skipped", skipped)
		}
		a.Log.Info("request", attrs...)
	})
}

// httpError is a refusal with its status and a machine-readable code the
// desk acts on (app.Refused…).
type httpError struct {
	status int
	code   string
	msg    string
}

func (e *httpError) Error() string { return e.msg }

func fail(status int, code, format string, args ...any) error {
	return &httpError{status: status, code: code, msg: fmt.Sprintf(format, args...)}
}

// answer is what the desk is told of err: the status, the code it acts on
// and the message. What is not a refusal is a 500 whose cause stays in the
// log, except a database that cannot take writes: the desk is told which
// (503), since its clerk or the administrator can act on it.
func answer(err error) (status int, code, msg string) {
	var he *httpError
	var br *central.BadRequest
	var mbe *http.MaxBytesError
	var reused *central.EventReused
	var wf *central.WriteFailure
	switch {
	case errors.As(err, &he):
		return he.status, he.code, he.msg
	case errors.As(err, &reused):
		return http.StatusConflict, app.RefusedEventReused, reused.Error()
	case errors.As(err, &br):
		return http.StatusBadRequest, app.RefusedInvalid, br.Reason
	case errors.As(err, &mbe):
		return http.StatusRequestEntityTooLarge, app.RefusedInvalid, fmt.Sprintf("request body over %d bytes: send smaller batches", mbe.Limit)
	case errors.Is(err, central.ErrRevoked):
		return http.StatusForbidden, app.RefusedRevoked, "this station was revoked by the administrator: ask for a new token ('qrdesk-server station renew NAME')"
	case errors.Is(err, central.ErrFeedCompacted):
		return http.StatusGone, app.RefusedFeedCompacted, err.Error()
	case errors.Is(err, central.ErrFeedReset):
		return http.StatusGone, app.RefusedFeedReset, err.Error()
	case errors.As(err, &wf):
		return http.StatusServiceUnavailable, app.FailedDatabase, wf.Error()
	}
	return http.StatusInternalServerError, "internal", "internal error; see the server log"
}

func (a *API) write(w http.ResponseWriter, v any, err error) {
	w.Header().Set("Content-Type", "application/json")
	if err != nil {
		status, code, msg := answer(err)
		var reused *central.EventReused
		switch {
		case errors.As(err, &reused):
			a.Log.Warn("event id reused with other content", "event_id", reused.EventID, "differs", reused.What, "another_desks", reused.Taken)
		case errors.Is(err, context.Canceled):
			// The desk hung up (it gave up waiting): nothing to answer.
			a.Log.Info("request cancelled by the desk", "error", err.Error())
		case status >= 500:
			a.Log.Error("request failed", "error", err.Error())
		}
		var wf *central.WriteFailure
		if sw, ok := w.(*statusWriter); ok && errors.As(err, &wf) {
			sw.writeFailed = cmp.Or(wf.Cause, central.WriteOther)
		}
		w.WriteHeader(status)
		body := map[string]any{"error": msg, "code": code}
		if reused != nil && reused.Taken {
			body["id_taken"] = true // app.ServerRefusal.IDTaken
		}
		json.NewEncoder(w).Encode(body)
		return
	}
	if raw, ok := v.(json.RawMessage); ok {
		// Encoded already, with its newline (the feed from memory, shared
		// by the desks at the same cursor): written as it is, not scanned
		// again by the encoder.
		w.Write(raw)
		return
	}
	json.NewEncoder(w).Encode(v)
}

// station authenticates the bearer token and the key ring, then runs h.
func (a *API) station(h func(r *http.Request, st central.Station) (any, error)) http.HandlerFunc {
	return a.authenticated(h, lookUpEveryTime)
}

// cachedStation is station, but the token may be found in the cache of
// recent lookups: only for handlers whose store call checks the station
// itself (Apply refuses a revoked station in the same statement).
func (a *API) cachedStation(h func(r *http.Request, st central.Station) (any, error)) http.HandlerFunc {
	return a.authenticated(h, lookUpCachedWrite)
}

// feedStation is station for the feed reads: the token may be found in
// the cache while this process has changed no station since (see
// stationLookup).
func (a *API) feedStation(h func(r *http.Request, st central.Station) (any, error)) http.HandlerFunc {
	return a.authenticated(h, lookUpCachedRead)
}

// stationLookup says where a request's token is looked up.
type stationLookup int

const (
	lookUpEveryTime stationLookup = iota
	// lookUpCachedWrite: the cache will do, since the store refuses a
	// revoked station in the write itself.
	lookUpCachedWrite
	// lookUpCachedRead: the cache will do while this process has changed
	// no station since the lookup (StationsChanged): a revocation or a move
	// made on the dashboard or by a desk's request takes effect at the
	// desk's next feed read; one made by another process (the CLI) within
	// stationCacheTTL. With 1,000 desks following the feed, the lookup was
	// 2,300 queries a second, a third of PostgreSQL's work.
	lookUpCachedRead
)

// stationsChanges is what a store that counts its changes to stations
// offers (serverdb.DB); without it, feed reads look up every time.
type stationsChanges interface{ StationsChanged() int64 }

func (a *API) stationsGeneration() (int64, bool) {
	if sc, ok := a.Store.(stationsChanges); ok {
		return sc.StationsChanged(), true
	}
	return 0, false
}

// cachedForRead is the cached station of a token for a feed read (see
// lookUpCachedRead): found only while no station changed since.
func (a *API) cachedForRead(hash string) (central.Station, bool) {
	gen, counted := a.stationsGeneration()
	if !counted {
		return central.Station{}, false
	}
	return a.stations.getUnchanged(hash, gen)
}

func (a *API) authenticated(h func(r *http.Request, st central.Station) (any, error), lookup stationLookup) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		reply := a.replyTo(w, r)
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || token == "" {
			reply(nil, fail(http.StatusUnauthorized, app.RefusedUnknownToken, "missing bearer token: create one with 'qrdesk-server station add NAME --letter L'"))
			return
		}
		hash := HashToken(token)
		var st central.Station
		found := false
		switch lookup {
		case lookUpCachedWrite:
			st, found = a.stations.get(hash)
		case lookUpCachedRead:
			st, found = a.cachedForRead(hash)
		}
		if !found {
			var err error
			if st, err = a.lookUpStation(r.Context(), hash); err != nil {
				reply(nil, err)
				return
			}
		}
		// The desk's protocol before its key ring: a desk the server does
		// not serve binds nothing, but the Desks page shows it too old.
		ver := a.noteVersion(r, st)
		a.Metrics.deskProtocol(st.ID, ver.Protocol)
		if ver.Protocol < protocol.OldestDesk {
			served := a.servesOldDesk(r)
			a.Metrics.oldDeskRequest(r.Pattern, served)
			if !served {
				reply(nil, fail(http.StatusUpgradeRequired, app.RefusedDeskTooOld, "%s", protocol.DeskTooOldReason))
				return
			}
		}
		if err := a.checkRing(r.Context(), r.Header.Get(RingHeader)); err != nil {
			reply(nil, err)
			return
		}
		a.Metrics.sawDesk(st.ID, a.Now().Unix())
		r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
		v, err := h(r, st)
		if errors.Is(err, central.ErrRevoked) && found {
			// Revoked or renewed since the lookup was cached: say which.
			if _, err = a.lookUpStation(r.Context(), hash); err == nil {
				err = central.ErrRevoked
			}
		}
		reply(v, err)
	}
}

// lookUpStation finds the token's station in the database (and caches it),
// or returns the refusal for the desk.
func (a *API) lookUpStation(ctx context.Context, hash string) (central.Station, error) {
	gen, _ := a.stationsGeneration() // before the lookup: a change made during it is seen later
	st, err := a.Store.StationByToken(ctx, hash)
	switch {
	case errors.Is(err, central.ErrUnauthorized):
		a.stations.drop(hash)
		return st, fail(http.StatusUnauthorized, app.RefusedUnknownToken, "unknown station token: check the token, or ask the administrator for one ('qrdesk-server station add NAME --letter L'). "+
			"If this desk synced with this server before, the server was restored from a backup older than the desk's enrolment: "+
			"enrol it again under the same name and letter and give it the new token at the desk ('qrdesk sync --server URL --token-file FILE'): it then sends everything again")
	case errors.Is(err, central.ErrRevoked):
		a.stations.drop(hash)
		return st, fail(http.StatusForbidden, app.RefusedRevoked, "station %q was revoked by the administrator: ask for a new token ('qrdesk-server station renew %s')", st.Name, st.Name)
	case err != nil:
		return st, err
	}
	a.stations.put(hash, st, gen)
	return st, nil
}

// checkRing refuses a station whose key ring is not the deployment's: its
// labels would not verify at the other desks.
func (a *API) checkRing(ctx context.Context, ring string) error {
	if !ringIDPattern.MatchString(ring) {
		return fail(http.StatusBadRequest, app.RefusedInvalid, "missing or malformed %s header: send the key ring id 'qrdesk init' shows", RingHeader)
	}
	bound, _ := a.ring.Load().(string)
	if bound == "" {
		var err error
		if bound, err = a.Store.BindRing(ctx, ring); err != nil {
			return err
		}
		a.ring.Store(bound)
	}
	if bound != ring {
		a.Metrics.ringMismatch()
		return fail(http.StatusConflict, app.RefusedWrongRing, "this station's key ring (%s) differs from the deployment's (%s): copy the deployment's key file to the station", ring, bound)
	}
	return nil
}

// ringIDPattern is the shape of a key-ring id (see app.Keys.RingID).
var ringIDPattern = regexp.MustCompile(`^[0-9a-f]{16}$`)

// decode reads exactly one JSON value: unknown fields and anything after
// the value are refused.
func decode(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		if _, terr := dec.Token(); terr != io.EOF {
			err = errors.New("unexpected data after the JSON value")
			var mbe *http.MaxBytesError
			if errors.As(terr, &mbe) {
				err = terr
			}
		}
	}
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return err
		}
		return &central.BadRequest{Reason: "malformed JSON: " + err.Error()}
	}
	return nil
}

func (a *API) health(w http.ResponseWriter, r *http.Request) {
	ring, err := a.Store.RingID(r.Context())
	a.write(w, map[string]any{"status": "ok", "enrolled": ring != "", "time": a.Now().Unix()}, err)
}

// enrol answers who the desk is at this server, what the server speaks
// (its protocol and the event kinds it decides) and the station's write
// counter, by which a desk finds that the server lost history.
func (a *API) enrol(r *http.Request, st central.Station) (any, error) {
	writes := st.Writes
	en := app.Enrolment{Station: st.Name, Letter: st.Letter, KeyRing: r.Header.Get(RingHeader),
		Protocol: app.Protocol, Kinds: a.kinds(), Writes: &writes}
	// The desk names writes it was given: one the server does not hold as
	// that write was lost (a restore), even if the counter caught up with
	// writes whose answers never reached the desk.
	checks, held, err := namedWrites(r)
	if err != nil {
		return nil, err
	}
	if err := a.Store.KeepHeldSerials(r.Context(), held); err != nil {
		return nil, err
	}
	if len(checks) > 0 {
		held, err := a.Store.HoldsWrites(r.Context(), st, checks)
		if err != nil {
			return nil, err
		}
		en.Lost, en.Checked = !held, len(checks)
	}
	// Restored from a backup since this desk's last enrolment: it sends
	// everything again, whatever it wrote (serverdb/epoch.go).
	behind, err := a.Store.CatchUpEpoch(r.Context(), st)
	if err != nil {
		return nil, err
	}
	en.Lost = en.Lost || behind
	sites, err := a.Store.SiteInfo(r.Context(), st)
	if err != nil {
		return nil, err
	}
	en.Sites = &sites
	// The serials this desk's letter holds: a desk restored from its own
	// backup issues above them, never its serials again. For every day a
	// desk may issue (app.IssueDaysBack), and two more, so a desk's time
	// zone is covered either way.
	from := a.Now().AddDate(0, 0, -app.IssueDaysBack-2).Format("2006-01-02")
	if en.Serials, err = a.Store.SerialMarks(r.Context(), st.Letter, from); err != nil {
		return nil, err
	}
	return en, nil
}

// namedWrites reads the writes a desk names at its enrolment: the body's
// list (protocol.EnrolRequest), or the one write in the query of a desk
// from before the list (its highest); and the serials it holds
// (EnrolRequest.Held), checked.
func namedWrites(r *http.Request) ([]protocol.WriteCheck, []protocol.LetterSerialMark, error) {
	var req protocol.EnrolRequest
	if err := decode(r, &req); err != nil && !errors.Is(err, io.EOF) {
		return nil, nil, err
	}
	if len(req.Writes) > protocol.MaxWriteChecks {
		return nil, nil, central.Badf("the enrolment names %d writes: at most %d", len(req.Writes), protocol.MaxWriteChecks)
	}
	if err := central.ValidateHeldSerials(req.Held); err != nil {
		return nil, nil, err
	}
	if len(req.Writes) > 0 {
		return req.Writes, req.Held, nil
	}
	if n, err := strconv.ParseInt(r.URL.Query().Get("write"), 10, 64); err == nil && n > 0 {
		return []protocol.WriteCheck{{Number: n, Key: r.URL.Query().Get("key")}}, req.Held, nil
	}
	return nil, req.Held, nil
}

// kinds returns the event kinds this server decides.
func (a *API) kinds() []string {
	if a.Kinds != nil {
		return a.Kinds
	}
	return central.Kinds
}

func (a *API) batches(r *http.Request, st central.Station) (any, error) {
	var req struct {
		Codes []central.CodeIn `json:"codes"`
	}
	if err := decode(r, &req); err != nil {
		return nil, err
	}
	if letter := central.SoleLetter(req.Codes); st.Letter == "" && letter != "" {
		// A station from the first release, whose letter the upgrade
		// could not bind from codes it had uploaded: its first upload
		// binds it, if no other station holds it.
		bound, err := a.Store.BindLetterAtUpload(r.Context(), st, letter)
		if err != nil {
			return nil, err
		}
		if bound {
			a.Log.Info("station letter bound at its first upload", "station", st.Name, "letter", letter)
			st.Letter = letter
			a.stations.drop(st.TokenHash)
		}
	}
	if err := central.ValidateCodes(st, req.Codes); err != nil {
		return nil, err
	}
	n, write, err := a.Store.UploadBatch(r.Context(), st, req.Codes, a.Now().Unix())
	return map[string]int64{"added": int64(n), "received": int64(len(req.Codes)), "write": write}, err
}

func (a *API) redeem(r *http.Request, st central.Station) (any, error) {
	var ev central.Event
	if err := decode(r, &ev); err != nil {
		return nil, err
	}
	ev.Kind, ev.Offline = protocol.KindRedeem, false
	if err := central.ValidateEvent(-1, ev); err != nil {
		return nil, err
	}
	res, err := a.Store.Apply(r.Context(), st, []central.Event{ev}, a.Now().Unix())
	if err != nil {
		return nil, err
	}
	a.Metrics.countRedemptions(st.Site, []central.Event{ev}, res)
	a.Metrics.deskClockOnline(st.ID, ev.At, a.Now())
	// A label of another site: the desk says where it was issued (it never
	// downloaded it: a desk follows only its own site's feed).
	if res[0].Outcome != central.OutcomeUnknown {
		if err := a.otherSitesLabel(r, st, ev.Code, &res[0]); err != nil {
			return nil, err
		}
	}
	return res[0], nil
}

// otherSitesLabel tells, in an answer about a label of another site than
// the station's, the label's site, issue time and expiry.
func (a *API) otherSitesLabel(r *http.Request, st central.Station, code string, res *central.Result) error {
	l, ok, err := a.Store.LabelSite(r.Context(), code)
	if err != nil || !ok || l.Site == st.SiteID {
		return err
	}
	res.Site, res.LabelCreatedAt, res.LabelExpireAt = l.SiteName, l.CreatedAt, l.ExpireAt
	return nil
}

// events decides a desk's events in order. An event this server does not
// know (its kind, or a field a newer desk added) is answered "unsupported"
// alone, unrecorded: the desk keeps it until the server is upgraded, and
// the others are decided as usual, except the later events of the same
// label: they wait behind it (answered "unsupported" too), as the desk
// queued them. An event this server cannot read (a field of the wrong
// type, an event id of the wrong shape) is refused alone ("rejected").
func (a *API) events(r *http.Request, st central.Station) (any, error) {
	var req struct {
		Events []json.RawMessage `json:"events"`
	}
	if err := decode(r, &req); err != nil {
		return nil, err
	}
	if len(req.Events) > central.MaxEvents {
		return nil, central.Badf("at most %d events per request", central.MaxEvents)
	}
	out := make([]central.Result, len(req.Events))
	evs := make([]central.Event, 0, len(req.Events))
	at := make([]int, 0, len(req.Events)) // where each of evs answers in out
	held := map[string]bool{}             // labels with an event the server cannot decide
	for i, raw := range req.Events {
		ev, supported, err := a.readEvent(i, raw)
		var br *central.BadRequest
		switch {
		case errors.As(err, &br):
			out[i] = central.Result{EventID: ev.EventID, Outcome: central.OutcomeRejected, Reason: br.Reason}
			continue
		case err != nil:
			return nil, err
		case !supported:
			if ev.Code != "" {
				held[ev.Code] = true
			}
			out[i] = central.Result{EventID: ev.EventID, Outcome: central.OutcomeUnsupported, Reason: app.UnsupportedReason}
			continue
		case ev.Code != "" && held[ev.Code]:
			out[i] = central.Result{EventID: ev.EventID, Outcome: central.OutcomeUnsupported, Reason: app.HeldBehindReason}
			continue
		}
		if err := central.ValidateEvent(i, ev); err != nil {
			return nil, err
		}
		if ev.Kind == central.KindReplace {
			if _, err := central.ReplacementCode(st, ev); err != nil {
				return nil, central.Badf("events[%d]: %v", i, err)
			}
		}
		evs, at = append(evs, ev), append(at, i)
	}
	res, err := a.Store.Apply(r.Context(), st, evs, a.Now().Unix())
	a.Metrics.countRedemptions(st.Site, evs, res)
	a.Metrics.deskClock(st.ID, evs)
	if err != nil {
		return nil, err
	}
	for k, res := range res {
		// An offline redemption of another site's label: the desk kept
		// a copy of a label it never downloaded.
		if evs[k].Kind == central.KindRedeem && res.Outcome != central.OutcomeUnknown && res.Outcome != central.OutcomeRejected {
			if err := a.otherSitesLabel(r, st, evs[k].Code, &res); err != nil {
				return nil, err
			}
		}
		out[at[k]] = res
	}
	return map[string]any{"results": out}, nil
}

// eventFields are the JSON fields of an event this server reads.
var eventFields = func() map[string]bool {
	m := map[string]bool{}
	t := reflect.TypeFor[central.Event]()
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			m[name] = true
		}
	}
	return m
}()

// readEvent reads events[i]; supported is false when its kind is not one
// this server decides or it carries a field this server does not read. An
// event it cannot read is a *central.BadRequest, with the event's id when
// that is one (the desk matches the answer by it): an event id of the
// wrong shape is never echoed back.
func (a *API) readEvent(i int, raw json.RawMessage) (ev central.Event, supported bool, err error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return ev, false, central.Badf("events[%d]: malformed JSON: %v", i, err)
	}
	// The id and the kind first: an event of a kind this server does not
	// know may type its other fields as a newer protocol does.
	var id, kind, code string
	for name, v := range map[string]*string{"event_id": &id, "kind": &kind} {
		if f, ok := fields[name]; ok {
			if err := json.Unmarshal(f, v); err != nil {
				return ev, false, central.Badf("events[%d]: %s must be a string", i, name)
			}
		}
	}
	json.Unmarshal(fields["code"], &code) // a code of another type holds nothing back
	if !central.ValidEventID(id) {
		return ev, false, central.Badf("events[%d]: event_id must be 8–64 letters, digits, - or _", i)
	}
	ev.EventID, ev.Kind, ev.Code = id, kind, code
	if !slices.Contains(a.kinds(), kind) {
		return ev, false, nil
	}
	if err := json.Unmarshal(raw, &ev); err != nil {
		return central.Event{EventID: id, Kind: kind, Code: code}, false, central.Badf("events[%d]: malformed JSON: %v", i, err)
	}
	for name := range fields {
		if !eventFields[name] {
			return ev, false, nil
		}
	}
	return ev, true, nil
}

func (a *API) changes(r *http.Request, st central.Station) (any, error) {
	after, err := strconv.ParseInt(r.URL.Query().Get("after"), 10, 64)
	if (err != nil && r.URL.Query().Get("after") != "") || after < 0 {
		return nil, central.Badf("after must be a feed position (0 or more)")
	}
	limit := central.MaxChangesPage
	if l := r.URL.Query().Get("limit"); l != "" {
		if limit, err = strconv.Atoi(l); err != nil || limit < 1 || limit > central.MaxChangesPage {
			return nil, central.Badf("limit must be 1 to %d", central.MaxChangesPage)
		}
	}
	// The tag of the change the desk applied at after (a desk of this
	// release sends it): the feed is checked to hold that very change.
	check := r.URL.Query().Get("check")
	if len(check) > 64 {
		return nil, central.Badf("check must be a change's tag")
	}
	wait := 0
	if w := r.URL.Query().Get("wait"); w != "" {
		if wait, err = strconv.Atoi(w); err != nil || wait < 0 || wait > MaxWait {
			return nil, central.Badf("wait must be 0 to %d seconds", MaxWait)
		}
	}
	// Long poll: with wait, an empty answer is held until a change arrives
	// (or wait seconds pass), so a desk that is online learns of another
	// desk's redemption within a fraction of a second. Every answer holds
	// each change committed before the request arrived (or, once woken,
	// before the write that woke it).
	ctx := r.Context()
	if wait > 0 {
		defer a.tail.wakes.follow(st.SiteID)()
	}
	notBefore := time.Now()
	deadline := notBefore.Add(time.Duration(wait) * time.Second)
	for first := true; ; first = false {
		woken := a.tail.wakes.channel(st.SiteID) // before the read: a change the tail takes after it wakes this poll
		if !first {
			// The poll waited: the station may have been revoked, given a
			// new token or moved meanwhile, as for a read arriving now.
			if err := a.stillStation(ctx, st); err != nil {
				return nil, err
			}
		}
		if err := a.tail.refresh(ctx, notBefore); err != nil {
			return nil, err
		}
		if first && st.SiteFrom != 0 {
			// The station moved to another site since this desk read
			// the feed: it starts over from its new site's snapshot (or
			// reads that site's feed from its beginning).
			if after > 0 {
				return nil, central.ErrFeedCompacted
			}
			if err := a.siteMoveSeen(ctx, st); err != nil {
				return nil, err
			}
			st.SiteFrom = 0 // seen: stillStation compares with the stored station
		}
		if first && check != "" && after > 0 {
			if err := a.checkFeed(ctx, after, check); err != nil {
				return nil, err
			}
		}
		var answer any
		found := 0
		if body, n, ok := a.tail.page(after, limit, st.SiteID); ok {
			answer, found = body, n
		} else {
			ch, err := a.feed().SiteChanges(ctx, st.SiteID, after, limit)
			if err != nil {
				return nil, err
			}
			next := after
			if len(ch) > 0 {
				next = ch[len(ch)-1].Seq
			}
			answer, found = map[string]any{"changes": ch, "next": next}, len(ch)
		}
		a.ack(st.ID, after) // the desk has applied everything up to after
		if found > 0 || !time.Now().Before(deadline) {
			return answer, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-woken:
			// The tail took a change for this site: it holds it already.
			notBefore = time.Time{}
		case <-time.After(feedPoll):
			// Other server processes' writes: a refresh within the last
			// feedPoll will do.
			notBefore = time.Now().Add(-feedPoll)
		}
	}
}

// stillStation checks a waiting long poll's station again, as a feed read
// arriving now would (the cache while no station changed, else the
// database): revoked or given a new token, the poll is refused; moved to
// another site, it is told to start over (the desk's next read takes the
// new site's snapshot).
func (a *API) stillStation(ctx context.Context, st central.Station) error {
	now, found := a.cachedForRead(st.TokenHash)
	if !found {
		var err error
		if now, err = a.lookUpStation(ctx, st.TokenHash); err != nil {
			return err
		}
	}
	if now.SiteID != st.SiteID || now.SiteFrom != st.SiteFrom {
		return central.ErrFeedCompacted
	}
	return nil
}

// checkFeed returns central.ErrFeedReset when the change at position after
// is not the one the desk applied there (its tag is check), or the feed
// holds none there though it was never compacted so far: the server's
// database was restored from a backup (or failed over to a standby that
// was behind) and the positions after it were written again, or not yet.
// The feed from memory answers without the database when it holds the
// position.
func (a *API) checkFeed(ctx context.Context, after int64, check string) error {
	if rewound, ok := a.tail.rewound(after, check); ok {
		if rewound {
			return central.ErrFeedReset
		}
		return nil
	}
	tag, held, err := a.feed().FeedTag(ctx, after)
	switch {
	case err != nil:
		return err
	case held && tag != check:
		return central.ErrFeedReset
	case held:
		return nil
	}
	// Not held: the primary does not hold it either (a read replica asks
	// the primary for a position it lacks), so the primary's floor says
	// whether it was compacted.
	floor, _, err := a.Store.FeedBounds(ctx)
	if err != nil {
		return err
	}
	if after > floor {
		return central.ErrFeedReset
	}
	return nil // compacted: nothing to check it against
}

// MaxWait bounds a long poll of the feed, below the server's 30 s write
// timeout. A waiting poll looks again when the tail takes a change for its
// site (a write of this process makes it read: feedwake.go), and every
// feedPoll for the changes other server processes on the same database
// write.
const (
	MaxWait  = 25
	feedPoll = 500 * time.Millisecond
)

// writes marks a handler that may add changes to the feed: when it ends,
// the tail reads them and wakes the polls of their sites.
func (a *API) writes(h func(r *http.Request, st central.Station) (any, error)) func(r *http.Request, st central.Station) (any, error) {
	return func(r *http.Request, st central.Station) (any, error) {
		defer a.notifyFeed()
		v, err := h(r, st)
		var wf *central.WriteFailure
		switch {
		case errors.As(err, &wf):
			a.writeRefused(err)
		case err == nil:
			a.wroteOK()
		}
		return v, err
	}
}

// notifyFeed: a request of this process may have written a change.
func (a *API) notifyFeed() { a.tail.changed() }

func (a *API) conflicts(r *http.Request, st central.Station) (any, error) {
	day, err := dayRange(r.URL.Query().Get("date"), a.Now())
	if err != nil {
		return nil, err
	}
	list, err := a.Store.Conflicts(r.Context(), day.Unix(), day.AddDate(0, 0, 1).Unix())
	return map[string]any{"conflicts": list}, err
}

// dayRange reads YYYY-MM-DD ("" for today) as a local day.
func dayRange(date string, now time.Time) (time.Time, error) {
	d, err := app.ParseDate(date, now)
	if err != nil {
		return time.Time{}, central.Badf("date must be YYYY-MM-DD")
	}
	return d, nil
}

// ack remembers how far a station has read the feed; FlushAcks stores it
// (a write per feed read would cost every desk's poll an fsync).
func (a *API) ack(station, after int64) {
	if after <= 0 {
		return
	}
	a.ackMu.Lock()
	defer a.ackMu.Unlock()
	if a.acks == nil {
		a.acks = map[int64]central.FeedAck{}
	}
	a.acks[station] = central.FeedAck{Position: max(a.acks[station].Position, after), At: a.Now().Unix()}
}

// FlushAcks stores the feed positions the stations have read.
func (a *API) FlushAcks(ctx context.Context) error {
	a.ackMu.Lock()
	acks := a.acks
	a.acks = nil
	a.ackMu.Unlock()
	return a.Store.AckFeed(ctx, acks)
}

// SnapshotPage is how many codes one snapshot request returns.
const SnapshotPage = 5000

func (a *API) snapshot(r *http.Request, st central.Station) (any, error) {
	afterID, err := strconv.ParseInt(r.URL.Query().Get("after_id"), 10, 64)
	if (err != nil && r.URL.Query().Get("after_id") != "") || afterID < 0 {
		return nil, central.Badf("after_id must be a code id from the previous page")
	}
	// A later page names the first page's position (a desk of an older
	// release does not): a read replica serves it only when it holds that
	// position, so the page is at least as new.
	position, err := strconv.ParseInt(r.URL.Query().Get("position"), 10, 64)
	if (err != nil && r.URL.Query().Get("position") != "") || position < 0 {
		return nil, central.Badf("position must be the first page's position")
	}
	if afterID == 0 && st.SiteFrom != 0 {
		if err := a.siteMoveSeen(r.Context(), st); err != nil {
			return nil, err
		}
	}
	page := SnapshotPage
	if a.SnapshotPage > 0 {
		page = a.SnapshotPage
	}
	return a.feed().Snapshot(r.Context(), st.SiteID, afterID, position, page)
}

// siteMoveSeen records that a moved station's desk starts over now, and
// drops its cached lookup so its next request is not told again.
func (a *API) siteMoveSeen(ctx context.Context, st central.Station) error {
	if err := a.Store.SiteMoveSeen(ctx, st.ID); err != nil {
		return err
	}
	a.stations.drop(st.TokenHash)
	return nil
}

// status keeps a desk's report of what only it knows (its outbox, what it
// printed) for the dashboard. Nothing the server decides reads it.
func (a *API) status(r *http.Request, st central.Station) (any, error) {
	var rep central.StatusReport
	if err := decode(r, &rep); err != nil {
		return nil, err
	}
	now := a.Now()
	if err := central.ValidateStatus(rep, now); err != nil {
		return nil, err
	}
	rep.At = central.StatusTime(rep, now)
	if err := a.Store.SetDeskStatus(r.Context(), central.DeskStatus{Station: st.Name, StatusReport: rep, ReceivedAt: now.Unix()}); err != nil {
		return nil, err
	}
	oldestAt := int64(0)
	if rep.OldestWaitingSeconds > 0 {
		oldestAt = now.Unix() - rep.OldestWaitingSeconds
	}
	a.Metrics.deskReported(st.ID, rep.EventsWaiting, oldestAt)
	return map[string]string{"status": "ok"}, nil
}
