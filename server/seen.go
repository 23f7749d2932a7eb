package server

import "qrdesk/central"

// PendingAcks returns how far each station (by id) has read the feed, and
// when, as this process saw it since it last stored that (FlushAcks): the
// dashboard's "last seen" is fresher than the database.
func (a *API) PendingAcks() map[int64]central.FeedAck {
	a.ackMu.Lock()
	defer a.ackMu.Unlock()
	out := make(map[int64]central.FeedAck, len(a.acks))
	for id, ack := range a.acks {
		out[id] = ack
	}
	return out
}
