package server

import (
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"slices"
	"strings"

	"qrdesk/central"
	"qrdesk/protocol"
)

// The events a desk sends: an online scan (POST /v1/redeem), decided
// before the parcel goes, and its outbox (POST /v1/events), decided in
// the order the desk sent it (central.Store's Apply). An event of a kind
// this server does not know waits at the desk (OutcomeUnsupported).

// redeem decides one online scan.
func (a *API) redeem(r *http.Request, st central.Station) (any, error) {
	var ev protocol.Event
	if err := decode(r, &ev); err != nil {
		return nil, err
	}
	ev.Kind, ev.Offline = protocol.KindRedeem, false
	if err := central.ValidateEvent(-1, ev); err != nil {
		return nil, err
	}
	res, err := a.Store.Apply(r.Context(), st, []protocol.Event{ev}, a.Now().Unix())
	if err != nil {
		return nil, err
	}
	a.Metrics.countRedemptions(st.Site, []protocol.Event{ev}, res)
	a.Metrics.deskClockOnline(st.ID, ev.At, a.Now())
	// A label of another site: the desk says where it was issued (it never
	// downloaded it: a desk follows only its own site's feed).
	if res[0].Outcome != protocol.OutcomeUnknown {
		if err := a.otherSitesLabel(r, st, ev.Code, &res[0]); err != nil {
			return nil, err
		}
	}
	return res[0], nil
}

// otherSitesLabel tells, in an answer about a label of another site than
// the station's, the label's site, issue time and expiry.
func (a *API) otherSitesLabel(r *http.Request, st central.Station, code string, res *protocol.Result) error {
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
	out := make([]protocol.Result, len(req.Events))
	evs := make([]protocol.Event, 0, len(req.Events))
	at := make([]int, 0, len(req.Events)) // where each of evs answers in out
	held := map[string]bool{}             // labels with an event the server cannot decide
	for i, raw := range req.Events {
		ev, supported, err := a.readEvent(i, raw)
		var br *central.BadRequest
		switch {
		case errors.As(err, &br):
			out[i] = protocol.Result{EventID: ev.EventID, Outcome: protocol.OutcomeRejected, Reason: br.Reason}
			continue
		case err != nil:
			return nil, err
		case !supported:
			if ev.Code != "" {
				held[ev.Code] = true
			}
			out[i] = protocol.Result{EventID: ev.EventID, Outcome: protocol.OutcomeUnsupported, Reason: protocol.UnsupportedReason}
			continue
		case ev.Code != "" && held[ev.Code]:
			out[i] = protocol.Result{EventID: ev.EventID, Outcome: protocol.OutcomeUnsupported, Reason: protocol.HeldBehindReason}
			continue
		}
		if err := central.ValidateEvent(i, ev); err != nil {
			return nil, err
		}
		if ev.Kind == protocol.KindReplace {
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
		if evs[k].Kind == protocol.KindRedeem && res.Outcome != protocol.OutcomeUnknown && res.Outcome != protocol.OutcomeRejected {
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
	t := reflect.TypeFor[protocol.Event]()
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
func (a *API) readEvent(i int, raw json.RawMessage) (ev protocol.Event, supported bool, err error) {
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
	ev.EventID, ev.Kind, ev.Code = id, protocol.Kind(kind), code
	if !slices.Contains(a.kinds(), ev.Kind) {
		return ev, false, nil
	}
	if err := json.Unmarshal(raw, &ev); err != nil {
		return protocol.Event{EventID: id, Kind: protocol.Kind(kind), Code: code}, false, central.Badf("events[%d]: malformed JSON: %v", i, err)
	}
	for name := range fields {
		if !eventFields[name] {
			return ev, false, nil
		}
	}
	return ev, true, nil
}
