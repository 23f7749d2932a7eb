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

// DeskProtocols returns the protocol each station (by id) last spoke to
// this process (0: a header that names none), for the dashboard: a desk
// below protocol.OldestDesk is refused until qrdesk is upgraded on it.
func (a *API) DeskProtocols() map[int64]int {
	a.protoMu.Lock()
	defer a.protoMu.Unlock()
	out := make(map[int64]int, len(a.protos))
	for id, v := range a.protos {
		out[id] = v
	}
	return out
}

func (a *API) sawProtocol(station int64, version int) {
	a.protoMu.Lock()
	defer a.protoMu.Unlock()
	if a.protos == nil {
		a.protos = map[int64]int{}
	}
	a.protos[station] = version
}
