package multidesk_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/deskclient"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// TestUndoWindowOnTheServersClock: a desk whose clock is 2 hours behind the
// server's (measured: it is online) redeems a label online; the desk keeps
// the server's time of that redemption. An hour later by every true clock,
// far past the 5-minute undo window, its supervisor undoes it. The window
// was judged on the desk's clock against the server's time of the
// redemption, so the undo passed for up to 2 hours and 5 minutes, the
// server (which checks no window) applied it, and another desk then handed
// the parcel over again: two uses of one label, no conflict anywhere. The
// undo must be refused and the second scan answered "already used".
//
// The mirror image, a desk 2 hours ahead, could never undo its online
// redemptions at all: a minute after it, the undo must go through.
func TestUndoWindowOnTheServersClock(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 2)
		off := -2 * time.Hour
		a.Skew(h, &off)
		a.Sync(t) // measures the offset: 2 hours behind
		if v := a.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A online: %+v", v)
		}
		h.Now = h.Now.Add(time.Hour)
		a.Sync(t)
		if u, err := a.Svc.UndoRedemption(ctx, app.UndoRequest{Code: codes[0], Reason: "wrong parcel", Operator: "boss"}); err == nil {
			t.Errorf("an hour after the redemption (5-minute window), on a desk 2 hours behind: undo accepted %+v, want refused as too late", u)
		}
		b.Sync(t)
		if v := b.Redeem(t, codes[0], "wang"); v.Outcome != app.OutcomeAlreadyUsed {
			t.Fatalf("desk B scanning the label an hour after desk A handed it over: %s, want already used (the parcel went out twice)", v.Outcome)
		}

		// Desk A's clock now 2 hours ahead: a minute after its online
		// redemption, its undo goes through.
		off = 2 * time.Hour
		a.Sync(t)
		if v := a.Redeem(t, codes[1], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A online: %+v", v)
		}
		h.Now = h.Now.Add(time.Minute)
		u, err := a.Svc.UndoRedemption(ctx, app.UndoRequest{Code: codes[1], Reason: "wrong parcel", Operator: "boss"})
		if err != nil || u.Server != "undone" {
			t.Fatalf("a minute after the redemption, on a desk 2 hours ahead: %+v %v, want undone", u, err)
		}
	})
}

// TestUndoAfterClockSetBackWhileStopped: the desk's clock is right when it
// redeems a label online; the desk program stops, the clock is set back 2
// hours, and an hour later (by the server's clock) a new desk process (a
// 'qrdesk undo' command) undoes the redemption, online. The desk cannot
// tell (its measurement now lies "after" its clock, so it judges on its
// own clock), and the server, which checked no undo window, applied it:
// the label was handed over again at another desk with no conflict. Now
// the undo carries the desk's window and the server judges it on its own
// clock: refused as too late, the label used again at desk A.
func TestUndoAfterClockSetBackWhileStopped(t *testing.T) {
	t.Parallel()

	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 1)
		if v := a.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A online: %+v", v)
		}
		h.Now = h.Now.Add(time.Hour)
		// A new process on desk A's database, its clock 2 hours behind.
		svc := app.NewService(a.DB, h.Keys, nil)
		svc.Now = func() time.Time { return h.Now.Add(-2 * time.Hour) }
		svc.Remote = a.Svc.Remote
		u, err := svc.UndoRedemption(ctx, app.UndoRequest{Code: codes[0], Reason: "wrong parcel", Operator: "boss"})
		if err == nil && u.Server == "undone" {
			t.Errorf("an hour after the redemption (5-minute window): the server applied the undo %+v", u)
		}
		if err == nil && (u.Server != "refused" || !strings.Contains(u.ServerReason, "too late") || u.Status != app.StatusUsed) {
			t.Errorf("the undo: server %q, reason %q, label %s; want refused as too late by the server's clock, the label used again", u.Server, u.ServerReason, u.Status)
		}
		if st := a.Status(t, codes[0]); st != app.StatusUsed {
			t.Errorf("desk A's copy after the refused undo: %s, want used", st)
		}
		b.Sync(t)
		if v := b.Redeem(t, codes[0], "wang"); v.Outcome != app.OutcomeAlreadyUsed {
			t.Fatalf("desk B scanning the label an hour after desk A handed it over: %s, want already used", v.Outcome)
		}
	})
}

// TestUndoWindowOnlyToANewerServer: an undo carries its desk's window only
// to a server that reads it (protocol 6); a protocol-5 server, which
// refuses fields it does not know, gets the undo without it and takes it
// (judged against the largest window a desk may set); upgraded, it gets
// the window.
func TestUndoWindowOnlyToANewerServer(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h := centraltest.New(t, dbPath, 0)
		old := &olderServer{next: h.API.Handler(), on: true, protocol: 5, path: "/v1/events", fields: []string{"undo_window"}}
		srv := httptest.NewServer(old)
		t.Cleanup(srv.Close)
		a := h.Desk(t, "Desk A", "A", "")
		a.Svc.Remote = deskclient.New(srv.URL, h.Station(t, "Desk A", "A"))
		codes := a.Issue(t, 2)
		a.Sync(t)
		for i, code := range codes {
			if i == 1 {
				old.on = false // the server is upgraded
				a.Sync(t)      // and the desk hears its protocol
			}
			if v := a.Redeem(t, code, "li"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("label %d online: %+v", i, v)
			}
			h.Now = h.Now.Add(time.Minute)
			u, err := a.Svc.UndoRedemption(ctx, app.UndoRequest{Code: code, Reason: "wrong parcel", Operator: "boss"})
			if err != nil || u.Server != "undone" {
				t.Errorf("label %d: undo a minute after an online redemption: %+v %v, want undone", i, u, err)
			}
		}
		if old.refused != 0 {
			t.Errorf("the protocol-5 server refused %d requests for a field it does not know", old.refused)
		}
	})
}
