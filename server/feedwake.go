package server

import (
	"context"
	"sync"
	"time"
)

// siteWakes wakes the long polls of the sites a refresh brought changes
// to. Every write used to wake every desk following the feed: with 1,000
// desks in 100 sites, each change woke the 990 desks that had nothing to
// read, and their herd kept redemptions waiting for the CPU.
type siteWakes struct {
	mu      sync.Mutex
	ch      map[int64]chan struct{} // a site's, closed at its next change
	waiting map[int64]int           // the long polls under way, by site
	polls   int                     // all of them
}

// channel is closed when the tail next takes a change for the site's
// desks (its own, or a deployment-wide one). Take it before reading the
// tail: a change taken after the read then wakes the poll.
func (w *siteWakes) channel(site int64) <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ch == nil {
		w.ch = map[int64]chan struct{}{}
	}
	c, ok := w.ch[site]
	if !ok {
		c = make(chan struct{})
		w.ch[site] = c
	}
	return c
}

// wake wakes the site's polls; site 0 (a change for every site, or the
// tail started over) wakes them all.
func (w *siteWakes) wake(site int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for s, c := range w.ch {
		if site == 0 || s == site {
			close(c)
			delete(w.ch, s)
		}
	}
}

// follow counts a long poll of the site until the returned func is called.
func (w *siteWakes) follow(site int64) (done func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.waiting == nil {
		w.waiting = map[int64]int{}
	}
	w.waiting[site]++
	w.polls++
	return func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.polls--
		if w.waiting[site]--; w.waiting[site] == 0 {
			delete(w.waiting, site)
		}
	}
}

// following is how many long polls are under way, and in how many sites.
func (w *siteWakes) following() (polls, sites int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.polls, len(w.waiting)
}

// kicker runs the refreshes this process's writes ask for, one at a time,
// on its own goroutine (which ends when none is asked for): a write no
// longer wakes every poll so that one of them reads the database.
type kicker struct {
	mu               sync.Mutex
	running, pending bool
}

// kick asks for a refresh that begins after this call.
func (k *kicker) kick(refresh func()) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.pending = true
	if !k.running {
		k.running = true
		go k.loop(refresh)
	}
}

func (k *kicker) loop(refresh func()) {
	for {
		k.mu.Lock()
		if !k.pending {
			k.running = false
			k.mu.Unlock()
			return
		}
		k.pending = false
		k.mu.Unlock()
		refresh()
	}
}

// kickRefreshTimeout bounds a refresh a write asked for (the database may
// hang): the polls then read at their next feedPoll, as before.
const kickRefreshTimeout = 10 * time.Second

// changed is called when a write of this process may have added changes:
// while desks follow the feed, the tail reads them and wakes their sites.
func (t *feedTail) changed() {
	if polls, _ := t.wakes.following(); polls == 0 {
		return // no poll waits: the next request's own refresh reads them
	}
	t.kicks.kick(func() {
		ctx, cancel := context.WithTimeout(context.Background(), kickRefreshTimeout)
		defer cancel()
		t.refresh(ctx, time.Now())
	})
}
