package server

import (
	"errors"
	"io"
	"net/http"
	"strconv"

	"qrdesk/app"
	"qrdesk/central"
	"qrdesk/protocol"
)

// enrol answers who the desk is at this server, what the server speaks
// (its protocol and the event kinds it decides) and the station's write
// counter, by which a desk finds that the server lost history.
func (a *API) enrol(r *http.Request, st central.Station) (any, error) {
	writes := st.Writes
	en := protocol.Enrolment{Station: st.Name, Letter: st.Letter, KeyRing: r.Header.Get(protocol.RingHeader),
		Protocol: protocol.Version, Kinds: a.kinds(), Writes: &writes}
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
func (a *API) kinds() []protocol.Kind {
	if a.Kinds != nil {
		return a.Kinds
	}
	return central.Kinds
}
