package multidesk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"testing"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// A replacement links two labels into one entitlement (issue 17, item 1):
// a use of both, in either order, at any desks, online or offline, is a
// double use, recorded as a conflict naming both labels on the server and
// at every desk. Real desks and a real server on loopback, both engines.

// named returns the codes a conflict names (its label, and the other
// label of the entitlement when it has one), sorted.
func named(k protocol.Conflict) string {
	var w struct {
		Code       string `json:"code"`
		SecondCode string `json:"second_code"`
	}
	data, _ := json.Marshal(k)
	json.Unmarshal(data, &w)
	codes := []string{w.Code}
	if w.SecondCode != "" {
		codes = append(codes, w.SecondCode)
	}
	sort.Strings(codes)
	return strings.Join(codes, " ")
}

// pair is the two codes a conflict of x and y should name.
func pair(x, y string) string {
	codes := []string{x, y}
	sort.Strings(codes)
	return strings.Join(codes, " ")
}

// wantEntitlementConflict checks that the server, its report and
// dashboard, and every desk list exactly one conflict, naming x and y.
func wantEntitlementConflict(t *testing.T, h *centraltest.Harness, x, y string, desks map[string]*centraltest.Desk) {
	t.Helper()
	ctx := context.Background()
	want := pair(x, y)
	report, err := h.DB.Conflicts(ctx, 0, math.MaxInt64) // what qrdesk-server report lists
	if err != nil || len(report) != 1 || named(report[0]) != want {
		t.Fatalf("server conflicts %+v %v, want one naming %s", report, err, want)
	}
	dash, err := h.DB.ConflictRecords(ctx, 0, math.MaxInt64)
	if err != nil || len(dash) != 1 || named(dash[0].Conflict) != want {
		t.Fatalf("dashboard conflicts %+v %v, want one naming %s", dash, err, want)
	}
	for name, d := range desks {
		list, err := d.Svc.Conflicts(ctx)
		if err != nil || len(list) != 1 || named(list[0]) != want {
			t.Errorf("desk %s lists %+v %v, want one conflict naming %s", name, list, err, want)
		}
	}
}

// The scenario exactly: desk A replaces X by Y ("torn"); desk B,
// offline and not told, redeems X (green); A redeems Y. After every desk
// syncs, the server has X and Y used, and one conflict naming both, on the
// server, its dashboard and report, and at every desk.
func TestReplacementAndOriginalBothUsedIsAConflict(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 1)
		c := h.Desk(t, "Desk C", "C", h.Station(t, "Desk C", "C"))
		x := codes[0]
		y := a.Replace(t, x, "li")
		b.Offline(func() {
			if v := b.Redeem(t, x, "wang"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("desk B offline, X: %+v", v)
			}
		})
		if v := a.Redeem(t, y, "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A, Y: %+v", v)
		}
		for _, d := range []*centraltest.Desk{a, b, c, a, b, c} {
			d.Sync(t)
		}
		for _, code := range []string{x, y} {
			if n := h.Server(t).CountLabel(code, "used"); n != 1 {
				t.Fatalf("server: %s not used", code)
			}
		}
		wantEntitlementConflict(t, h, x, y, map[string]*centraltest.Desk{"A": a, "B": b, "C": c})
	})
}

// The reverse order: A replaces X by Y and syncs, then redeems Y online;
// B, offline since before the replacement, redeems X; its upload is the
// conflict naming both. Online, a desk that asks after that is refused.
func TestOriginalUsedOfflineAfterReplacementUsed(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 1)
		x := codes[0]
		y := a.Replace(t, x, "li")
		a.Sync(t)
		if v := a.Redeem(t, y, "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A online, Y: %+v", v)
		}
		b.Offline(func() {
			if v := b.Redeem(t, x, "wang"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("desk B offline, X: %+v", v)
			}
		})
		b.Sync(t)
		a.Sync(t)
		wantEntitlementConflict(t, h, x, y, map[string]*centraltest.Desk{"A": a, "B": b})
	})
}

// Online, a redemption of a label whose entitlement was used is refused as
// already used, naming the other label and where it was used; a desk that
// knows refuses it offline too, in either direction.
func TestEntitlementUsedIsRefused(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 2)
		// Y used online at A; B, synced since, refuses X offline from its
		// copy (replaced there too, and its entitlement used).
		x := codes[0]
		y := a.Replace(t, x, "li")
		a.Sync(t)
		if v := a.Redeem(t, y, "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A, Y: %+v", v)
		}
		b.Sync(t)
		b.Offline(func() {
			if v := b.Redeem(t, x, "wang"); v.Outcome == app.OutcomeRedeemed {
				t.Fatalf("desk B offline, X after it heard Y was used: %+v, want refused", v)
			}
		})
		// X used offline (the label was disabled at the server) by B, then
		// Y asked online at A: already used, naming X.
		x2 := codes[1]
		y2 := a.Replace(t, x2, "li")
		a.Sync(t)
		b.Offline(func() {
			if v := b.Redeem(t, x2, "wang"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("desk B offline, X2: %+v", v)
			}
		})
		b.Sync(t)
		v := a.Redeem(t, y2, "li")
		if v.Outcome != app.OutcomeAlreadyUsed || v.UsedStation != "Desk B" || !strings.Contains(v.Message(), x2) {
			t.Fatalf("desk A online, Y2 after X2 was used at B: %+v (%s), want already used naming %s at Desk B", v, v.Message(), x2)
		}
		if n := h.Server(t).CountLabel(y2, "unused"); n != 1 {
			t.Fatal("the server changed the refused label")
		}
		// A knows now (its copy): offline it refuses Y2 as well.
		a.Sync(t)
		a.Offline(func() {
			if v := a.Redeem(t, y2, "li"); v.Outcome != app.OutcomeAlreadyUsed {
				t.Fatalf("desk A offline, Y2: %+v, want already used", v)
			}
		})
		if n := h.Server(t).CountConflicts(); n != 0 {
			t.Fatalf("%d conflicts, want none: every double use was refused", n)
		}
	})
}

// A replacement that reaches the server after X was used at another desk
// (A had not heard): the same conflict, naming X and Y, and Y is void
// (disabled, saying why) at the server and at every desk, so it cannot
// become a second valid label.
func TestReplaceAfterUseElsewhereIsAConflict(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 1)
		x := codes[0]
		if v := b.Redeem(t, x, "wang"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk B online, X: %+v", v)
		}
		var y string
		a.Offline(func() { y = a.Replace(t, x, "li") })
		a.Sync(t)
		b.Sync(t)
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM codes WHERE code = ? AND status = 'disabled' AND disabled_reason LIKE 'void: %'`, y); n != 1 {
			t.Fatal("the server did not void the late replacement")
		}
		for name, d := range map[string]*centraltest.Desk{"A": a, "B": b} {
			if got := d.Status(t, y); got != app.StatusDisabled {
				t.Errorf("desk %s: Y is %s, want disabled (void)", name, got)
			}
			if got := d.Status(t, x); got != app.StatusUsed {
				t.Errorf("desk %s: X is %s, want used", name, got)
			}
		}
		if v := a.Redeem(t, y, "li"); v.Outcome != app.OutcomeDisabled || !strings.Contains(v.DisabledReason, x) {
			t.Fatalf("desk A, Y: %+v, want refused as void naming %s", v, x)
		}
		wantEntitlementConflict(t, h, x, y, map[string]*centraltest.Desk{"A": a, "B": b})
	})
}

// Two redemptions of X and Y at once (X offline at B, uploaded, and Y
// online at A) never both pass without a conflict: the server serializes
// on the entitlement. Many pairs race; for each, either Y was refused or a
// conflict names both.
func TestEntitlementRaceIsNeverSilent(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		const pairs = 40
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, pairs)
		ys := make([]string, pairs)
		for i, x := range codes {
			ys[i] = a.Replace(t, x, "li")
		}
		a.Sync(t) // B has not heard
		b.Offline(func() {
			for _, x := range codes {
				if v := b.Redeem(t, x, "wang"); v.Outcome != app.OutcomeRedeemed {
					t.Fatalf("desk B offline, X: %+v", v)
				}
			}
		})
		tok := "qrd_test_Desk_A"
		green := make([]bool, pairs)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range ys {
			wg.Go(func() {
				<-start
				var r protocol.Result
				ev := protocol.Event{EventID: fmt.Sprintf("race-y-%03d", i), Code: ys[i], Operator: "li", At: h.Now.Unix()}
				h.Call(t, "POST", "/v1/redeem", tok, h.Ring, ev, &r)
				green[i] = r.Outcome == protocol.OutcomeRedeemed
			})
		}
		wg.Go(func() {
			<-start
			if _, err := b.Svc.Sync(context.Background()); err != nil {
				t.Errorf("desk B sync: %v", err)
			}
		})
		close(start)
		wg.Wait()
		for i, x := range codes {
			n := h.Server(t).ConflictsBetween(x, ys[i])
			if green[i] && n != 1 {
				t.Errorf("pair %d: Y redeemed online and X used offline, %d conflicts naming both, want 1", i, n)
			}
			if !green[i] && n != 0 {
				t.Errorf("pair %d: Y refused, yet %d conflicts", i, n)
			}
		}
	})
}

// Enabling a replaced label again would make two valid labels of one
// entitlement: refused at the desk and at the server, saying why.
func TestEnableReplacedLabelIsRefused(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, _, codes := centraltest.TwoDesks(t, dbPath, 1)
		x := codes[0]
		y := a.Replace(t, x, "li")
		if _, err := a.Svc.SetDisabled(context.Background(), x, false, "", "li"); err == nil || !strings.Contains(err.Error(), y) {
			t.Fatalf("desk A enabling X: %v, want refused naming %s", err, y)
		}
		a.Sync(t)
		var res struct{ Results []protocol.Result }
		ev := protocol.Event{EventID: "enable-replaced-x", Kind: protocol.KindEnable, Code: x, Operator: "li", At: h.Now.Unix()}
		h.Call(t, "POST", "/v1/events", "qrd_test_Desk_B", h.Ring, map[string]any{"events": []protocol.Event{ev}}, &res)
		if len(res.Results) != 1 || res.Results[0].Outcome != protocol.OutcomeRejected || !strings.Contains(res.Results[0].Reason, y) {
			t.Fatalf("server, enable of X: %+v, want rejected naming %s", res.Results, y)
		}
		if n := h.Server(t).CountLabel(x, "disabled"); n != 1 {
			t.Fatal("the server enabled the replaced label")
		}
	})
}

// A replacement's batch is not uploaded apart from its replace event: the
// event brings the new label, linked. Uploaded first alone (the events
// request of that sync dropped, a revoked token), the new label was an
// ordinary one at the server, its redemptions no double use, and the
// replace event arriving after them was refused as "not a fresh label":
// the parcel went out twice with no conflict (faultsim seeds 154, 273, 360
// SQLite, 2190 PostgreSQL). Here the sync stops after the batches, and
// desk A then redeems Y online.
func TestReplacementBatchWaitsForItsReplaceEvent(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 1)
		x := codes[0]
		if v := b.Redeem(t, x, "wang"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk B online, X: %+v", v)
		}
		var y string
		a.Offline(func() { y = a.Replace(t, x, "li") })
		// The batches of a sync whose events request then fails.
		batches, err := a.Svc.Store.PendingBatches(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ring := a.Svc.Keys.RingID()
		for _, id := range batches {
			up, err := a.Svc.Store.BatchUploadCodes(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := a.Svc.Remote.UploadBatch(ctx, ring, up); err != nil {
				t.Fatal(err)
			}
			if err := a.Svc.Store.MarkBatchUploaded(ctx, id); err != nil {
				t.Fatal(err)
			}
		}
		if v := a.Redeem(t, y, "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A, Y: %+v", v)
		}
		a.Sync(t)
		b.Sync(t)
		a.Sync(t)
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM codes WHERE code IN (?, ?) AND entitlement = ?`, x, y, x); n != 2 {
			t.Fatalf("%d of X and Y linked into X's entitlement, want 2", n)
		}
		if n := h.Server(t).ConflictsBetween(x, y); n < 1 {
			t.Fatalf("%d conflicts naming X and Y, want one at least: Y was used after X", n)
		}
	})
}
