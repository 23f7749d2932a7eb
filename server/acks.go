package server

import (
	"context"

	"qrdesk/central"
)

// Acks: how far each station has read the feed. A feed read notes it in
// memory (ack); FlushAcks stores the notes now and then, and the
// dashboard's "last seen" reads the notes not stored yet (PendingAcks).

// ack remembers how far a station has read the feed; FlushAcks stores it
// (a write per feed read would cost every desk's poll an fsync).
func (a *API) ack(station, after int64) {
	if after <= 0 {
		return
	}
	a.ackMu.Lock()
	defer a.ackMu.Unlock()
	if a.acks == nil {
		a.acks = map[int64]central.FeedAck{}
	}
	a.acks[station] = central.FeedAck{Position: max(a.acks[station].Position, after), At: a.Now().Unix()}
}

// FlushAcks stores the feed positions the stations have read.
func (a *API) FlushAcks(ctx context.Context) error {
	a.ackMu.Lock()
	acks := a.acks
	a.acks = nil
	a.ackMu.Unlock()
	return a.Store.AckFeed(ctx, acks)
}

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
