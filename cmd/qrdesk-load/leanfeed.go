package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"qrdesk/app"
	"qrdesk/internal/buildinfo"
	"qrdesk/protocol"
)

// countChanges is GET /v1/changes as deskclient.Client.Changes sends it, but
// the answer is counted, not decoded (--lean-feed): with 1,000 desks the
// feed is hundreds of thousands of changes a second, and decoding them
// takes the simulator most of a core on the server's own machine. Any
// answer but 200 is asked again through deskclient.Client, for its errors.
// With withCodes the changes' labels are read too.
func (d *desk) countChanges(ctx context.Context, after int64, wait time.Duration, withCodes bool) (map[string]int, []string, int64, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", fmt.Sprintf("%s/v1/changes?after=%d&wait=%d&limit=%d", d.c.URL, after, int(wait/time.Second), app.FeedPage), nil)
	if err != nil {
		return nil, nil, 0, err
	}
	req.Header.Set("Authorization", "Bearer "+d.c.Token)
	req.Header.Set(protocol.RingHeader, d.l.ring)
	req.Header.Set(protocol.Header, strconv.Itoa(protocol.Version))
	// The release too, as the client sends it: the server records a desk's
	// version when it changes, and a feed read without it would be a
	// change (a write) at every other request of the desk.
	req.Header.Set(protocol.ReleaseHeader, buildinfo.Release())
	resp, err := d.c.HTTP.Do(req)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("%w: %v", app.ErrTransient, err) // as the client says it
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		_, _, err = d.c.Changes(ctx, d.l.ring, after, 0)
		return nil, nil, 0, err
	}
	return countFeed(body, withCodes)
}

// countFeed reads {"changes":[{"seq":…,"kind":"…","code":"…",…},…],"next":N}:
// the kinds are counted where they are written, and with withCodes the
// code that follows each kind is listed; quotes inside a change's data are
// escaped, so they never match.
func countFeed(body []byte, withCodes bool) (map[string]int, []string, int64, error) {
	kinds := map[string]int{}
	var codes []string
	rest := body
	for {
		i := bytes.Index(rest, []byte(`,"kind":"`))
		if i < 0 {
			break
		}
		rest = rest[i+9:]
		j := bytes.IndexByte(rest, '"')
		if j < 0 {
			break
		}
		kinds[string(rest[:j])]++
		rest = rest[j:]
		if withCodes && bytes.HasPrefix(rest, []byte(`","code":"`)) {
			c := rest[10:]
			if k := bytes.IndexByte(c, '"'); k >= 0 {
				codes = append(codes, string(c[:k]))
			}
		}
	}
	i := bytes.LastIndex(body, []byte(`"next":`))
	if i < 0 {
		return nil, nil, 0, fmt.Errorf("no next in the feed's answer")
	}
	num := body[i+7:]
	end := 0
	for end < len(num) && num[end] >= '0' && num[end] <= '9' {
		end++
	}
	next, err := strconv.ParseInt(string(num[:end]), 10, 64)
	return kinds, codes, next, err
}
