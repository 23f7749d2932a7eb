package server

import "net/http"

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
