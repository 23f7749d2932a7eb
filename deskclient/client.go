// Package deskclient is the desk's side of the desk–server protocol: the
// HTTP client a desk syncs with qrdesk-server through (app.Remote). It
// speaks only the protocol (package protocol), so the desk binary links
// nothing of the server: not its HTTP handlers, its database nor its
// metrics (app/doors_test.go).
package deskclient

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"qrdesk/app"
	"qrdesk/internal/buildinfo"
	"qrdesk/protocol"
)

// Client is a station's connection to qrdesk-server; it implements
// app.Remote. No answer (network failures, timeouts) wraps
// app.ErrTransient; an error answer (5xx, 408, 429) is an
// *app.ServerFailure, transient too; any other 4xx is the server's answer
// "no", an *app.ServerRefusal.
type Client struct {
	URL   string
	Token string
	HTTP  *http.Client
}

var _ app.Remote = (*Client)(nil)

// New returns a client for the server at url.
func New(url, token string) *Client {
	return &Client{URL: strings.TrimRight(url, "/"), Token: token, HTTP: &http.Client{Timeout: 30 * time.Second}}
}

func (c *Client) do(ctx context.Context, method, path, ring string, body, out any) error {
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.URL+path, rd)
	if err != nil {
		return fmt.Errorf("server address %q: %w", c.URL, err)
	}
	req.Header.Set("Authorization", "Bearer "+c.Token)
	req.Header.Set(protocol.RingHeader, ring)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(protocol.Header, strconv.Itoa(protocol.Version))
	req.Header.Set(protocol.ReleaseHeader, buildinfo.Release())
	probe := app.ClockProbeFrom(ctx)
	var sent time.Time
	if probe != nil {
		sent = probe.Now()
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return fmt.Errorf("%w: %v", app.ErrTransient, err)
	}
	defer resp.Body.Close()
	if probe != nil {
		observeClock(ctx, probe, sent, resp.Header.Get(protocol.TimeHeader))
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error, Code string
			IDTaken     bool `json:"id_taken"`
		}
		json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&e)
		switch {
		case resp.StatusCode >= 500 || resp.StatusCode == http.StatusRequestTimeout || resp.StatusCode == http.StatusTooManyRequests:
			return &app.ServerFailure{Status: resp.StatusCode, Code: e.Code, Message: e.Error}
		case resp.StatusCode < 400:
			return fmt.Errorf("%w: unexpected answer %d", app.ErrTransient, resp.StatusCode)
		}
		if e.Error == "" {
			e.Error = http.StatusText(resp.StatusCode)
		}
		return &app.ServerRefusal{Status: resp.StatusCode, Code: e.Code, Message: e.Error, IDTaken: e.IDTaken}
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("%w: unreadable answer: %v", app.ErrTransient, err)
	}
	return nil
}

// Enrol asks the server who this desk is there and what it speaks, naming
// the writes it was given (restore detection); a server from before
// versions answers without kinds or writes. The highest named goes in the
// query too, for a server that reads only that one.
func (c *Client) Enrol(ctx context.Context, ring string, checks []protocol.WriteCheck) (protocol.Enrolment, error) {
	var out protocol.Enrolment
	path := "/v1/enrol"
	if len(checks) > 0 {
		highest := slices.MaxFunc(checks, func(a, b protocol.WriteCheck) int { return cmp.Compare(a.Number, b.Number) })
		path += "?" + url.Values{"write": {strconv.FormatInt(highest.Number, 10)}, "key": {highest.Key}}.Encode()
	}
	err := c.do(ctx, "POST", path, ring, protocol.EnrolRequest{Writes: checks}, &out)
	return out, err
}

// EnrolHolding enrols naming the serials the desk holds (a server of
// protocol.SiteCloseVersion or later).
func (c *Client) EnrolHolding(ctx context.Context, ring string, held []protocol.LetterSerialMark) (protocol.Enrolment, error) {
	var out protocol.Enrolment
	err := c.do(ctx, "POST", "/v1/enrol", ring, protocol.EnrolRequest{Held: held}, &out)
	return out, err
}

// UploadBatch sends codes and returns the server's write number for them
// (0: none given, e.g. all were stored already, or an older server).
func (c *Client) UploadBatch(ctx context.Context, ring string, codes []protocol.UploadCode) (int64, error) {
	var out struct{ Write int64 }
	err := c.do(ctx, "POST", "/v1/batches", ring, map[string]any{"codes": codes}, &out)
	return out.Write, err
}

func (c *Client) Redeem(ctx context.Context, ring string, ev protocol.Event) (protocol.Result, error) {
	var r protocol.Result
	err := c.do(ctx, "POST", "/v1/redeem", ring, map[string]any{"event_id": ev.EventID, "code": ev.Code, "operator": ev.Operator, "at": ev.At}, &r)
	return r, err
}

func (c *Client) Events(ctx context.Context, ring string, evs []protocol.Event) ([]protocol.Result, error) {
	var out struct{ Results []protocol.Result }
	err := c.do(ctx, "POST", "/v1/events", ring, map[string]any{"events": evs}, &out)
	if err == nil && len(out.Results) != len(evs) {
		err = fmt.Errorf("%w: %d answers for %d events", app.ErrTransient, len(out.Results), len(evs))
	}
	return out.Results, err
}

// Changes is Feed without a check of the change at after.
func (c *Client) Changes(ctx context.Context, ring string, after int64, wait time.Duration) ([]protocol.Change, int64, error) {
	return c.Feed(ctx, ring, after, "", wait)
}

func (c *Client) Feed(ctx context.Context, ring string, after int64, check string, wait time.Duration) ([]protocol.Change, int64, error) {
	var out struct {
		Changes []protocol.Change
		Next    int64
	}
	q := fmt.Sprintf("/v1/changes?after=%d&wait=%d&limit=%d", after, int(wait/time.Second), app.FeedPage)
	if check != "" {
		q += "&check=" + url.QueryEscape(check)
	}
	err := c.do(ctx, "GET", q, ring, nil, &out)
	return out.Changes, out.Next, err
}

func (c *Client) Snapshot(ctx context.Context, ring string, afterID, position int64) (protocol.Snapshot, error) {
	var out protocol.Snapshot
	q := fmt.Sprintf("/v1/snapshot?after_id=%d", afterID)
	if afterID > 0 && position > 0 {
		q += fmt.Sprintf("&position=%d", position) // an older server ignores it
	}
	err := c.do(ctx, "GET", q, ring, nil, &out)
	return out, err
}

// Report sends the desk's figures (POST /v1/status).
func (c *Client) Report(ctx context.Context, ring string, r app.DeskReport) error {
	var out map[string]any
	return c.do(ctx, "POST", "/v1/status", ring, r, &out)
}

// observeClock hands the probe the server's clock of an answer (header:
// Unix milliseconds; none from an older server, nothing measured).
func observeClock(ctx context.Context, probe *app.ClockProbe, sent time.Time, header string) {
	ms, err := strconv.ParseInt(header, 10, 64)
	if err != nil || ms <= 0 {
		return
	}
	probe.Observe(ctx, app.ClockSample{Sent: sent, Received: probe.Now(), Server: time.UnixMilli(ms)})
}
