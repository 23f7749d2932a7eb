package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"qrdesk/app"
)

// Limits of a request.
const (
	MaxBody        = 8 << 20 // a batch of 100,000 codes fits
	MaxEvents      = 1000
	MaxChangesPage = 5000
	// RingHeader carries the station's key-ring id on every request.
	RingHeader = "X-Qrdesk-Key-Ring"
)

// API serves the /v1 HTTP+JSON API on a Store.
type API struct {
	Store Store
	Log   *slog.Logger
	Now   func() time.Time

	ring atomic.Value // the deployment's key-ring id once known: it never changes
}

// HashToken is what the server stores of a station's bearer token.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// Handler returns the routes, with access logging.
func (a *API) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/health", a.health)
	mux.HandleFunc("POST /v1/enrol", a.station(a.enrol))
	mux.HandleFunc("POST /v1/batches", a.station(a.batches))
	mux.HandleFunc("POST /v1/redeem", a.station(a.redeem))
	mux.HandleFunc("POST /v1/events", a.station(a.events))
	mux.HandleFunc("GET /v1/changes", a.station(a.changes))
	mux.HandleFunc("GET /v1/conflicts", a.station(a.conflicts))
	return a.accessLog(mux)
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) { w.status = code; w.ResponseWriter.WriteHeader(code) }

// accessLog writes one line per request: never the token or the body.
func (a *API) accessLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: 200}
		next.ServeHTTP(sw, r)
		a.Log.Info("request", "method", r.Method, "path", r.URL.Path, "status", sw.status,
			"duration_ms", float64(time.Since(start).Microseconds())/1000, "remote", r.RemoteAddr)
	})
}

// httpError is a refusal with its status.
type httpError struct {
	status int
	msg    string
}

func (e *httpError) Error() string { return e.msg }

func fail(status int, format string, args ...any) error {
	return &httpError{status: status, msg: fmt.Sprintf(format, args...)}
}

func (a *API) write(w http.ResponseWriter, v any, err error) {
	w.Header().Set("Content-Type", "application/json")
	if err != nil {
		status := http.StatusInternalServerError
		msg := "internal error; see the server log"
		var he *httpError
		var br *BadRequest
		var mbe *http.MaxBytesError
		switch {
		case errors.As(err, &he):
			status, msg = he.status, he.msg
		case errors.As(err, &br):
			status, msg = http.StatusBadRequest, br.Reason
		case errors.As(err, &mbe):
			status, msg = http.StatusRequestEntityTooLarge, fmt.Sprintf("request body over %d bytes: send smaller batches", mbe.Limit)
		default:
			a.Log.Error("request failed", "error", err.Error())
		}
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(map[string]string{"error": msg})
		return
	}
	json.NewEncoder(w).Encode(v)
}

// station authenticates the bearer token and the key ring, then runs h.
func (a *API) station(h func(r *http.Request, st Station) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || token == "" {
			a.write(w, nil, fail(http.StatusUnauthorized, "missing bearer token: create one with 'qrdesk-server station add NAME'"))
			return
		}
		st, err := a.Store.StationByToken(r.Context(), HashToken(token))
		if errors.Is(err, ErrUnauthorized) {
			a.write(w, nil, fail(http.StatusUnauthorized, "unknown or revoked station token"))
			return
		}
		if err != nil {
			a.write(w, nil, err)
			return
		}
		if err := a.checkRing(r.Context(), r.Header.Get(RingHeader)); err != nil {
			a.write(w, nil, err)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
		v, err := h(r, st)
		a.write(w, v, err)
	}
}

// checkRing refuses a station whose key ring is not the deployment's: its
// labels would not verify at the other desks.
func (a *API) checkRing(ctx context.Context, ring string) error {
	if ring == "" {
		return fail(http.StatusBadRequest, "missing %s header", RingHeader)
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
		return fail(http.StatusConflict, "this station's key ring (%s) differs from the deployment's (%s): copy the deployment's key file to the station", ring, bound)
	}
	return nil
}

func decode(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return err
		}
		return &BadRequest{Reason: "malformed JSON: " + err.Error()}
	}
	return nil
}

func (a *API) health(w http.ResponseWriter, r *http.Request) {
	ring, err := a.Store.RingID(r.Context())
	a.write(w, map[string]any{"status": "ok", "enrolled": ring != "", "time": a.Now().Unix()}, err)
}

func (a *API) enrol(r *http.Request, st Station) (any, error) {
	return map[string]any{"station": st.Name, "key_ring": r.Header.Get(RingHeader)}, nil
}

func (a *API) batches(r *http.Request, st Station) (any, error) {
	var req struct {
		Codes []CodeIn `json:"codes"`
	}
	if err := decode(r, &req); err != nil {
		return nil, err
	}
	for i := range req.Codes {
		c, err := app.Parse(app.Normalize(req.Codes[i].Code))
		if err != nil || c.String() != req.Codes[i].Code {
			return nil, &BadRequest{Reason: fmt.Sprintf("codes[%d] %q is not a code in printed form", i, req.Codes[i].Code)}
		}
		in := &req.Codes[i]
		in.Random, in.Prefix, in.LabelDate, in.StationID, in.Serial = c.Random, c.Prefix, c.LabelDate(), c.Station, c.Serial
	}
	n, err := a.Store.UploadBatch(r.Context(), st, req.Codes, a.Now().Unix())
	return map[string]int{"added": n, "received": len(req.Codes)}, err
}

var eventIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{8,64}$`)

func validEvent(i int, ev Event) error {
	switch {
	case !eventIDPattern.MatchString(ev.EventID):
		return &BadRequest{Reason: fmt.Sprintf("events[%d]: event_id must be 8–64 letters, digits, - or _", i)}
	case ev.Kind != "redeem" && ev.Kind != "disable" && ev.Kind != "enable":
		return &BadRequest{Reason: fmt.Sprintf("events[%d]: kind must be redeem, disable or enable", i)}
	case len(ev.Operator) > 100 || len(ev.Reason) > 500:
		return &BadRequest{Reason: fmt.Sprintf("events[%d]: operator or reason too long", i)}
	case ev.At <= 0:
		return &BadRequest{Reason: fmt.Sprintf("events[%d]: at must be Unix seconds", i)}
	}
	if c, err := app.Parse(app.Normalize(ev.Code)); err != nil || c.String() != ev.Code {
		return &BadRequest{Reason: fmt.Sprintf("events[%d]: %q is not a code in printed form", i, ev.Code)}
	}
	return nil
}

func (a *API) redeem(r *http.Request, st Station) (any, error) {
	var ev Event
	if err := decode(r, &ev); err != nil {
		return nil, err
	}
	ev.Kind, ev.Offline = "redeem", false
	if err := validEvent(0, ev); err != nil {
		return nil, err
	}
	res, err := a.Store.Apply(r.Context(), st, []Event{ev}, a.Now().Unix())
	if err != nil {
		return nil, err
	}
	return res[0], nil
}

func (a *API) events(r *http.Request, st Station) (any, error) {
	var req struct {
		Events []Event `json:"events"`
	}
	if err := decode(r, &req); err != nil {
		return nil, err
	}
	if len(req.Events) > MaxEvents {
		return nil, &BadRequest{Reason: fmt.Sprintf("at most %d events per request", MaxEvents)}
	}
	for i, ev := range req.Events {
		if err := validEvent(i, ev); err != nil {
			return nil, err
		}
	}
	res, err := a.Store.Apply(r.Context(), st, req.Events, a.Now().Unix())
	return map[string]any{"results": res}, err
}

func (a *API) changes(r *http.Request, st Station) (any, error) {
	after, err := strconv.ParseInt(r.URL.Query().Get("after"), 10, 64)
	if err != nil && r.URL.Query().Get("after") != "" {
		return nil, &BadRequest{Reason: "after must be a sequence number"}
	}
	limit := MaxChangesPage
	if l := r.URL.Query().Get("limit"); l != "" {
		if limit, err = strconv.Atoi(l); err != nil || limit < 1 || limit > MaxChangesPage {
			return nil, &BadRequest{Reason: fmt.Sprintf("limit must be 1 to %d", MaxChangesPage)}
		}
	}
	ch, err := a.Store.Changes(r.Context(), after, limit)
	next := after
	if len(ch) > 0 {
		next = ch[len(ch)-1].Seq
	}
	return map[string]any{"changes": ch, "next": next}, err
}

func (a *API) conflicts(r *http.Request, st Station) (any, error) {
	day, err := dayRange(r.URL.Query().Get("date"), a.Now())
	if err != nil {
		return nil, err
	}
	list, err := a.Store.Conflicts(r.Context(), day.Unix(), day.AddDate(0, 0, 1).Unix())
	return map[string]any{"conflicts": list}, err
}

// dayRange reads YYYY-MM-DD ("" for today) as a local day.
func dayRange(date string, now time.Time) (time.Time, error) {
	if date == "" {
		return app.Day(now), nil
	}
	d, err := time.ParseInLocation("2006-01-02", date, now.Location())
	if err != nil {
		return time.Time{}, &BadRequest{Reason: "date must be YYYY-MM-DD"}
	}
	return d, nil
}
