package multidesk_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/deskclient"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/serverdbtest"
	"qrdesk/internal/testpg"
	"qrdesk/server"
)

// The server refusing a desk (revoked, another key ring, a refused batch)
// and refusals that are not the server's: the desk decides nothing alone
// and its sync goes on. Each runs on both engines (unless it says
// otherwise) with real desks (their own SQLite files, the real sync code)
// on loopback. "Defect N" numbers the multi-desk defects found by trying
// the server as a hostile user would.

// Defect 1: a server refusal was taken for "offline". A revoked desk, or
// one with another key ring, redeemed alone a label used elsewhere.
func TestRefusedDeskDecidesNothingAlone(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 4)
		if v := a.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A: %+v", v)
		}
		if err := h.DB.RevokeStation(context.Background(), "Desk B", h.Now.Unix()); err != nil {
			t.Fatal(err)
		}
		for _, code := range codes[:2] { // used at A; unused
			v := b.Redeem(t, code, "wang")
			if v.Outcome != app.OutcomeServerRefused || !strings.Contains(v.Reason, "revoked") {
				t.Fatalf("revoked desk B, %s: %+v, want server_refused saying revoked", code, v)
			}
		}
		if r := b.Svc.DeskRefused(); r == nil || r.Code != app.RefusedRevoked {
			t.Fatalf("desk B does not know it is revoked: %+v", r)
		}
		if n := b.Count(t, `SELECT count(*) FROM outbox`); n != 0 {
			t.Fatalf("revoked desk B queued %d events: it decided alone", n)
		}
		if n := b.Count(t, `SELECT count(*) FROM codes WHERE status = 'used'`); n != 0 {
			t.Fatalf("revoked desk B has %d used codes", n)
		}
		if n := b.Count(t, `SELECT count(*) FROM scans WHERE outcome = 'server_refused'`); n != 2 {
			t.Fatalf("%d refused scans logged, want 2", n)
		}
		if n := h.Server(t).CountLabel(codes[1], "unused"); n != 1 {
			t.Fatal("the unused label changed on the server")
		}
		var sr *app.ServerRefusal
		if _, err := b.Svc.Sync(context.Background()); !errors.As(err, &sr) || sr.Code != app.RefusedRevoked {
			t.Fatalf("sync of a revoked desk: %v", err)
		}

		// Its events made before the revocation wait for a new token, and
		// are neither given up nor marked rejected.
		down := h.Desk(t, "Desk D", "D", h.Station(t, "Desk D", "D"))
		down.Sync(t)
		down.Svc.Remote = deskclient.New("http://127.0.0.1:1", "qrd_test_Desk_D") // no answer
		if v := down.Redeem(t, codes[2], "sun"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk D offline: %+v", v)
		}
		down.Svc.Remote = deskclient.New(h.URL, "qrd_test_Desk_D")
		h.DB.RevokeStation(context.Background(), "Desk D", h.Now.Unix())
		if _, err := down.Svc.Sync(context.Background()); app.DeskRefusal(err) == nil {
			t.Fatalf("sync of revoked desk D: %v", err)
		}
		if n := down.Count(t, `SELECT count(*) FROM outbox WHERE state = 'pending'`); n != 1 {
			t.Fatalf("desk D's offline event: %d pending, want 1 (kept for later)", n)
		}
		if err := h.DB.RenewStation(context.Background(), "Desk D", server.HashToken("qrd_renewed")); err != nil {
			t.Fatal(err)
		}
		down.Svc.Remote = deskclient.New(h.URL, "qrd_renewed")
		down.Sync(t)
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM events WHERE code = ? AND station = 'Desk D'`, codes[2]); n != 1 {
			t.Fatalf("after renewal the server has %d of desk D's events, want 1", n)
		}
	})
}

// TestWrongKeyRingDesk: a desk whose key file is another deployment's is
// refused (409) and decides nothing alone.
func TestWrongKeyRingDesk(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, _, _, _ := centraltest.TwoDesks(t, dbPath, 1)
		other := centraltest.New(t, dbPath, 0)
		c := other.Desk(t, "Desk C", "C", "")
		c.Svc.Remote = deskclient.New(h.URL, h.Station(t, "Desk C", "C"))
		own := c.Issue(t, 1)
		v := c.Redeem(t, own[0], "zhao")
		if v.Outcome != app.OutcomeServerRefused || !strings.Contains(v.Reason, "key ring") {
			t.Fatalf("desk with another key ring: %+v", v)
		}
		if n := c.Count(t, `SELECT count(*) FROM codes WHERE status = 'used'`); n != 0 {
			t.Fatal("the desk with another key ring redeemed alone")
		}
	})
}

// TestRefusedBatchDoesNotStopSync: a desk whose batch the server refuses
// (issued before its first sync, under another letter than its
// enrolment's) is told why, and its events and the other desks' changes
// still flow. (The sync then sets the desk's letter to the enrolment's:
// TestNewDeskLeftAtTheDefaultLetter.)
func TestRefusedBatchDoesNotStopSync(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, _, codes := centraltest.TwoDesks(t, dbPath, 2)
		wrong := h.Desk(t, "Desk W", "Z", h.Station(t, "Desk W", "W")) // enrolled as W, issues as Z
		wrong.Issue(t, 3)
		if v := wrong.Redeem(t, codes[0], "zhao"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk W online: %+v", v)
		}
		a.Redeem(t, codes[1], "li")
		_, err := wrong.Svc.Sync(context.Background())
		var sr *app.ServerRefusal
		if !errors.As(err, &sr) || !strings.Contains(sr.Message, "letter Z") {
			t.Fatalf("sync with a refused batch: %v", err)
		}
		if v, _ := wrong.Svc.Check(context.Background(), codes[1]); v.Outcome != app.OutcomeAlreadyUsed {
			t.Fatalf("desk W did not get the other desks' changes: %+v", v)
		}
		if n := wrong.Count(t, `SELECT count(*) FROM batches WHERE uploaded = 0 AND created_at > 0`); n != 1 {
			t.Fatalf("%d batches waiting, want the refused one", n)
		}
	})
}

// TestForeignRefusalKeepsEvents (found by the second hostile pass): a 4xx
// that is not the server's refusal of an event's content (here a proxy's
// HTML 404) must not mark the desk's events refused for good.
func TestForeignRefusalKeepsEvents(t *testing.T) {
	t.Parallel()
	h, a, _, codes := centraltest.TwoDesks(t, func(t testing.TB) string { return filepath.Join(t.TempDir(), "server.DB") }, 2)
	a.Svc.Remote = deskclient.New("http://127.0.0.1:1", "qrd_test_Desk_A")
	a.Redeem(t, codes[0], "li") // decided here, queued
	real := (&server.API{Store: h.DB, Log: centraltest.Discard, Now: func() time.Time { return h.Now }}).Handler()
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/events" {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte("<html>Not Found</html>"))
			return
		}
		real.ServeHTTP(w, r)
	}))
	defer proxy.Close()
	a.Svc.Remote = deskclient.New(proxy.URL, "qrd_test_Desk_A")
	if _, err := a.Svc.Sync(context.Background()); err == nil {
		t.Fatal("a sync whose events a proxy refused reported success")
	}
	if n := a.Count(t, `SELECT count(*) FROM outbox WHERE state = 'pending'`); n != 1 {
		t.Fatalf("%d events still waiting, want 1 (not rejected)", n)
	}
	a.Svc.Remote = centraltest.NewClient(h, "Desk A")
	a.Sync(t)
	if n := len(h.Server(t).Events(serverdbtest.Where{Code: codes[0]})); n != 1 {
		t.Fatal("the event did not reach the server once the proxy let it through")
	}
}
