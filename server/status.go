package server

import (
	"net/http"

	"qrdesk/central"
)

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
