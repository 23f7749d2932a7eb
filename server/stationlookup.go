package server

import (
	"context"
	"errors"
	"net/http"

	"qrdesk/app"
	"qrdesk/central"
)

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
	// feedCacheTTL. With 1,000 desks following the feed, the lookup was
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
	case errors.Is(err, central.ErrTokenRenewed):
		a.stations.drop(hash)
		return st, fail(http.StatusUnauthorized, app.RefusedTokenRenewed, "this desk's token was renewed: the administrator gave station %q a new token ('qrdesk-server station renew'), and this one no longer works. "+
			"Give this desk the new token ('qrdesk sync --server URL --token-file FILE'): nothing is lost, its waiting scans go then. Do not enrol it again", st.Name)
	case errors.Is(err, central.ErrRevoked):
		a.stations.drop(hash)
		return st, fail(http.StatusForbidden, app.RefusedRevoked, "station %q was revoked by the administrator: ask for a new token ('qrdesk-server station renew %s')", st.Name, st.Name)
	case err != nil:
		return st, err
	}
	a.stations.put(hash, st, gen)
	return st, nil
}
