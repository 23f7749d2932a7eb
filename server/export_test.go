package server

import (
	"context"
	"encoding/json"
	"time"
)

// TailAnswerForTest is the feed tail's answer to a plain read that
// arrived at arrived: the refresh it runs (or leaves to a refresh begun
// since), then the page after the cursor.
func (a *API) TailAnswerForTest(ctx context.Context, arrived time.Time, after int64, limit int) (json.RawMessage, int, bool, error) {
	if err := a.tail.refresh(ctx, arrived); err != nil {
		return nil, 0, false, err
	}
	body, n, ok := a.tail.page(after, limit, 1) // the first site: every test label is there
	return body, n, ok, nil
}

// ProbeAgainForTest makes the next readiness check write again instead of
// answering the last probe's result (probeEvery, on the wall clock).
func (a *API) ProbeAgainForTest() {
	a.probe.mu.Lock()
	a.probe.at = time.Time{}
	a.probe.mu.Unlock()
}
