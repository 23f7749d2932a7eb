package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// callAs sends one desk request naming protocol version (nothing when
// ""), and returns the status and the refusal's code and message.
func callAs(t *testing.T, h *centraltest.Harness, method, path, token, version, body string) (status int, code, msg string) {
	t.Helper()
	req, err := http.NewRequest(method, h.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	req.Header.Set(protocol.RingHeader, h.Ring)
	if version != "" {
		req.Header.Set(protocol.Header, version)
	}
	resp, err := centraltest.HTTPClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var e struct{ Code, Error string }
	json.NewDecoder(resp.Body).Decode(&e)
	return resp.StatusCode, e.Code, e.Error
}

// TestDeskTooOldIsRefused: once the roll-out window is closed (serve
// --old-desks refuse), a desk that names no protocol (protocol 1, before
// versions) or a protocol below protocol.OldestDesk is refused on every
// desk endpoint with 426 desk_too_old and the clerk's message, before
// anything is bound or written; during the window (the default) its
// online redemption is decided, the rest still refused; a desk of this
// protocol or a newer one is served; health, readiness and metrics need no
// header.
func TestDeskTooOldIsRefused(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 2)
		h.API.SetOldDesks(false)
		tok := h.Station(t, "Desk 1", "A")
		endpoints := []struct{ method, path, body string }{
			{"POST", "/v1/enrol", `{}`},
			{"POST", "/v1/batches", `{"codes":[{"code":"` + h.Codes[0] + `","expire_at":0,"created_at":1}]}`},
			{"POST", "/v1/redeem", `{"event_id":"old-desk-0001","code":"` + h.Codes[0] + `","operator":"li","at":1}`},
			{"POST", "/v1/events", `{"events":[{"event_id":"old-desk-0002","kind":"redeem","code":"` + h.Codes[0] + `","operator":"li","at":1,"offline":true}]}`},
			{"GET", "/v1/changes?after=0", ``},
			{"GET", "/v1/conflicts", ``},
			{"GET", "/v1/snapshot?after_id=0", ``},
			{"POST", "/v1/status", `{}`},
		}
		for _, version := range []string{"", "1", "0", "two"} {
			for _, ep := range endpoints {
				status, code, msg := callAs(t, h, ep.method, ep.path, tok, version, ep.body)
				if status != http.StatusUpgradeRequired || code != protocol.RefusedDeskTooOld || msg != protocol.DeskTooOldReason {
					t.Errorf("%s %s with %s %q: %d %s %q, want 426 %s %q", ep.method, ep.path, protocol.Header, version,
						status, code, msg, protocol.RefusedDeskTooOld, protocol.DeskTooOldReason)
				}
			}
		}
		if ring, err := h.DB.RingID(context.Background()); err != nil || ring != "" {
			t.Fatalf("after refusing the old desk the deployment's key ring is %q (%v), want none bound", ring, err)
		}
		if n := h.Server(t).CountLabels(""); n != 0 {
			t.Fatalf("after refusing the old desk the server holds %d codes, want 0", n)
		}
		if got := centraltest.Count(t, h.DB, `SELECT desk_protocol FROM stations`); got != 1 {
			t.Errorf("the refused desk's protocol as the Desks page shows it: %d, want 1", got)
		}

		// The roll-out window: the old desk's scan is decided (the label's
		// batch is not uploaded: "unknown"), everything else refused.
		h.API.SetOldDesks(true)
		for _, version := range []string{"", "1"} {
			for _, ep := range endpoints {
				status, code, msg := callAs(t, h, ep.method, ep.path, tok, version, ep.body)
				if ep.path == "/v1/redeem" {
					if status != http.StatusOK {
						t.Errorf("during the roll-out window %s %s with %s %q: %d %s %q, want 200", ep.method, ep.path, protocol.Header, version, status, code, msg)
					}
					continue
				}
				if status != http.StatusUpgradeRequired || code != protocol.RefusedDeskTooOld {
					t.Errorf("during the roll-out window %s %s with %s %q: %d %s %q, want 426 %s", ep.method, ep.path, protocol.Header, version,
						status, code, msg, protocol.RefusedDeskTooOld)
				}
			}
		}

		// An unknown token is still told so, whatever its protocol.
		if status, code, _ := callAs(t, h, "POST", "/v1/enrol", "qrd_nobody", "", `{}`); status != http.StatusUnauthorized {
			t.Errorf("unknown token without %s: %d %s, want 401", protocol.Header, status, code)
		}
		for _, version := range []string{"2", "3"} {
			if status, code, msg := callAs(t, h, "POST", "/v1/enrol", tok, version, `{}`); status != http.StatusOK {
				t.Errorf("enrol with %s %s: %d %s %q, want 200", protocol.Header, version, status, code, msg)
			}
		}
		if got := centraltest.Count(t, h.DB, `SELECT desk_protocol FROM stations`); got != 3 {
			t.Errorf("the station last spoke protocol %d, want 3", got)
		}
		for _, path := range []string{"/v1/health", "/readyz", "/metrics"} {
			if status, code, msg := callAs(t, h, "GET", path, "", "", ""); status != http.StatusOK {
				t.Errorf("GET %s without %s: %d %s %q, want 200", path, protocol.Header, status, code, msg)
			}
		}
	})
}
