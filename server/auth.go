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
	return a.authenticated(h, lookUpEveryTime, false)
}

// decidingStation is station for the handlers that decide events through
// Apply (POST /v1/events): a station refused as revoked, or by a token
// renewed since, is still told what the server decided for it while its
// token was valid (see answerDecided).
func (a *API) decidingStation(h func(r *http.Request, st central.Station) (any, error)) http.HandlerFunc {
	return a.authenticated(h, lookUpEveryTime, true)
}

// cachedStation is decidingStation, but the token may be found in the
// cache of recent lookups: only for handlers whose store call checks the
// station itself (Apply refuses a revoked station in the same statement).
func (a *API) cachedStation(h func(r *http.Request, st central.Station) (any, error)) http.HandlerFunc {
	return a.authenticated(h, lookUpCachedWrite, true)
}

// feedStation is station for the feed reads: the token may be found in
// the cache while this process has changed no station since (see
// stationLookup).
func (a *API) feedStation(h func(r *http.Request, st central.Station) (any, error)) http.HandlerFunc {
	return a.authenticated(h, lookUpCachedRead, false)
}

// answerDecided runs h, a handler deciding events through Apply, for a
// station the lookup refused (refusal: revoked, or its token renewed).
// Apply refuses anything new of it, in the same statement as always (its
// token is not the station's active one), but answers a request whose
// events it decided before, while the token was valid: the same request
// sent twice around a revocation (a network that duplicates, a retry) is
// told the first copy's decision, not a refusal of a redemption the
// server holds. Anything else gets the lookup's refusal.
func (a *API) answerDecided(w http.ResponseWriter, r *http.Request, h func(r *http.Request, st central.Station) (any, error), st central.Station, refusal error) (any, error) {
	if st.ID == 0 {
		return nil, refusal
	}
	r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
	v, err := h(r, st)
	var br *central.BadRequest
	if errors.Is(err, central.ErrRevoked) || errors.As(err, &br) {
		return nil, refusal
	}
	return v, err
}

// stationRefused: the lookup found the token's station, and refused it
// as revoked or by a token renewed since.
func stationRefused(err error) bool {
	var he *httpError
	return errors.As(err, &he) && (he.code == app.RefusedRevoked || he.code == app.RefusedTokenRenewed)
}

func (a *API) authenticated(h func(r *http.Request, st central.Station) (any, error), lookup stationLookup, decides bool) http.HandlerFunc {
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
				if decides && stationRefused(err) {
					reply(a.answerDecided(w, r, h, st, err))
					return
				}
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
