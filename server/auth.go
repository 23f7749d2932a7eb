package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"regexp"
	"strings"

	"qrdesk/app"
	"qrdesk/central"
	"qrdesk/protocol"
)

// HashToken is what the server stores of a station's bearer token.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
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
				reply(nil, fail(http.StatusUpgradeRequired, protocol.RefusedDeskTooOld, "%s", protocol.DeskTooOldReason))
				return
			}
		}
		if err := a.checkRing(r.Context(), r.Header.Get(protocol.RingHeader)); err != nil {
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

// checkRing refuses a station whose key ring is not the deployment's: its
// labels would not verify at the other desks.
func (a *API) checkRing(ctx context.Context, ring string) error {
	if !ringIDPattern.MatchString(ring) {
		return fail(http.StatusBadRequest, app.RefusedInvalid, "missing or malformed %s header: send the key ring id 'qrdesk init' shows", protocol.RingHeader)
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
