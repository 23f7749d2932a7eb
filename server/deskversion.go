package server

import (
	"context"
	"net/http"
	"sync"

	"qrdesk/central"
	"qrdesk/protocol"
)

// deskVersions keeps what each desk last said it runs (the headers of its
// requests) and stores it when it changes: a desk's requests write nothing
// for it after its first one, and a desk upgraded in place is seen at its
// next request. Per process; a second process writes it once more.
type deskVersions struct {
	mu   sync.Mutex
	seen map[int64]central.DeskVersion
}

// versionOf reads what a request says its desk runs (protocol.DeskVersion);
// a header that names no protocol is shown as 1, before versions.
func versionOf(r *http.Request) central.DeskVersion {
	v := central.DeskVersion{Protocol: max(1, protocol.DeskVersion(r.Header.Get(protocol.Header))), Release: r.Header.Get(protocol.ReleaseHeader)}
	if len(v.Release) > 64 {
		v.Release = v.Release[:64]
	}
	return v
}

// noteVersion records the request's desk version when it is new for the
// station, and returns it. It never fails the request: the version is for
// the dashboard.
func (a *API) noteVersion(r *http.Request, st central.Station) central.DeskVersion {
	v := versionOf(r)
	a.versions.mu.Lock()
	same := a.versions.seen[st.ID] == v
	a.versions.mu.Unlock()
	if same {
		return v
	}
	// Not cancelled with the request: a desk that gave up on an answer
	// (an overloaded server) would leave the version unrecorded, and each
	// of its next requests would write it again.
	if err := a.Store.SetDeskVersion(context.WithoutCancel(r.Context()), st.ID, v); err != nil {
		a.Log.Warn("could not record the desk's version", "station", st.Name, "error", err.Error())
		return v
	}
	a.versions.mu.Lock()
	if a.versions.seen == nil {
		a.versions.seen = map[int64]central.DeskVersion{}
	}
	a.versions.seen[st.ID] = v
	a.versions.mu.Unlock()
	return v
}
