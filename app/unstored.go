package app

import (
	"context"
	"fmt"

	"qrdesk/protocol"
)

// maxUnstored bounds the server's redemptions this process keeps while it
// cannot store them: a desk whose disk is full stops short of that many
// scans (each one an error), and the oldest note goes first.
const maxUnstored = 1000

// unstoredAnswer is a redemption the server made for one of this desk's
// online scans that the desk could not record (its database refused the
// write: a full disk, a read-only file). The scan ended in an error, so
// the clerk kept the parcel; the label is used on the server, by this
// desk, at r.UsedAt.
type unstoredAnswer struct {
	a Attempt
	r protocol.Result
}

// keepUnstored remembers, for this process, the server's redemption of c
// that the desk could not store, so the customer's next scan of c here
// hands the parcel over instead of calling the label used: the server's
// use is this desk's own, and its answer never reached the clerk.
func (s *Service) keepUnstored(c Code, a Attempt, r protocol.Result) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.unstored == nil {
		s.unstored = map[string]unstoredAnswer{}
	}
	if len(s.unstored) >= maxUnstored {
		oldest := ""
		for k, u := range s.unstored {
			if oldest == "" || u.a.At < s.unstored[oldest].a.At {
				oldest = k
			}
		}
		delete(s.unstored, oldest)
	}
	s.unstored[c.String()] = unstoredAnswer{a: a, r: r}
}

// takeUnstored returns the server's redemption of c this desk could not
// store, if any.
func (s *Service) takeUnstored(c Code) (unstoredAnswer, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u, ok := s.unstored[c.String()]
	return u, ok
}

// storeUnstored records the server's redemption of c that an earlier scan
// here could not store, as that scan's (its event id, its time: what the
// server holds), and answers the scan now: redeemed, hand the parcel over.
// While the database still refuses the write, the error is the scan's
// again and the note stays.
func (s *Service) storeUnstored(ctx context.Context, c Code, u unstoredAnswer) (Verdict, error) {
	v, err := s.Store.MirrorRemote(ctx, c, u.a, u.r)
	if err != nil {
		return Verdict{}, err
	}
	s.mu.Lock()
	delete(s.unstored, c.String())
	s.mu.Unlock()
	v.Outcome, v.Site = OutcomeRedeemed, u.r.Site
	v.Reason = fmt.Sprintf("the server redeemed this label for this desk's scan at %s, which this desk could not store then (the scan showed an error): hand the parcel over now", FormatTime(u.r.UsedAt))
	return v, nil
}
