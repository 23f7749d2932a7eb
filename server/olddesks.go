package server

import (
	"encoding/json"
	"net/http"

	"qrdesk/app"
	"qrdesk/protocol"
)

// A desk from before protocol versions (protocol 1, below
// protocol.OldestDesk) is refused on every request (426 desk_too_old),
// except its online redemption during the roll-out window:
//
//   - The first release (2264f38) takes every answer but 200 for "the
//     server is away" and then redeems the label alone, on its stale copy:
//     a label another desk had just redeemed was handed over again. It
//     follows a 200's verdict (its MirrorRemote), so the server decides
//     its scans: the same rules as every desk's, the answer's fields those
//     releases read (event_id, outcome, used_at, used_station,
//     used_operator, reason). Only "unknown" (a label whose batch the
//     server has not got) lets it decide alone, as it lets today's desks.
//   - The release before versions (8fd1ea8) takes a 4xx for a refusal and
//     redeems nothing alone: served, its clerk can work instead of seeing
//     every scan refused.
//
// Everything else such a desk asks stays refused: its sync (enrolment,
// uploads, the feed) cannot be served safely (protocol.OldestDesk), so
// what it decided offline waits in its outbox until it is upgraded. The
// window ends when the operator starts the server with --old-desks refuse
// (SetOldDesks(false)), once the dashboard and qrdesk_desks_old_protocol
// show no such desk: from then on a first-release desk would redeem alone
// again.

// A refusal of such a desk's served request is answered 200 too, as the
// verdict "disabled" with the refusal as its reason (both releases show
// "Disabled: " and the reason, record the scan and change no label): an
// operator name this server refuses, a token revoked or renewed, a key
// ring that is not the deployment's. As a 4xx the first release would
// hand the parcel over alone. A 5xx stays a 5xx: the server cannot decide,
// and that desk decides alone as every desk does when the server is away.

// oldDeskRoutes are the requests of a protocol-1 desk served during the
// roll-out window.
var oldDeskRoutes = map[string]bool{"POST /v1/redeem": true}

// SetOldDesks opens (true, the default) or closes (false) the roll-out
// window in which the online redemptions of desks from before protocol
// versions are decided by this server; closed, they are refused like the
// rest of their requests (qrdesk-server serve --old-desks).
func (a *API) SetOldDesks(serve bool) { a.oldDesksRefused.Store(!serve) }

// servesOldDesk reports whether a request of a protocol-1 desk is served.
func (a *API) servesOldDesk(r *http.Request) bool {
	return !a.oldDesksRefused.Load() && oldDeskRoutes[r.Pattern]
}

// replyTo returns how r is answered: as every request, or, for a served
// request of a desk from before protocol versions, with its refusals as
// 200 verdicts that those releases follow.
func (a *API) replyTo(w http.ResponseWriter, r *http.Request) func(v any, err error) {
	if versionOf(r).Protocol >= protocol.OldestDesk || !a.servesOldDesk(r) {
		return func(v any, err error) { a.write(w, v, err) }
	}
	return func(v any, err error) {
		status, code, msg := answer(err)
		if err == nil || status >= 500 {
			a.write(w, v, err)
			return
		}
		a.Log.Info("a desk from before protocol versions was refused; answered as a disabled verdict so that it hands nothing over",
			"path", r.URL.Path, "status", status, "code", code, "reason", msg)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(oldDeskVerdict{Outcome: string(app.OutcomeDisabled),
			Reason: "the server refused this desk's scan, do not hand over: " + msg})
	}
}

// oldDeskVerdict is the part of a redemption's answer that desks from
// before protocol versions read of a refusal (their RemoteResult).
type oldDeskVerdict struct {
	Outcome string `json:"outcome"`
	Reason  string `json:"reason"`
}
