// Package server is qrdesk-server's HTTP API: the /v1 requests the desks
// send (docs/api.md), the dashboard's mount point, readiness and metrics.
// It decides nothing itself: it authenticates a desk, reads and checks its
// request and hands it to central.Store (package serverdb), whose Apply is
// where events are decided.
//
// Where things are: routes.go (the API and its routes), auth.go (tokens,
// the key ring, the handler wrappers), stationlookup.go and
// stationcache.go (when a cached station will do), answer.go (refusals
// and answers), enrol.go, batches.go, events.go (online scans and the
// outbox), feed.go with feedtail.go and feedwake.go (the long poll),
// snapshot.go, conflicts.go, status.go, acks.go (how far each desk read),
// olddesks.go and deskversion.go (desks of older releases), ready.go and
// metrics*.go.
package server
