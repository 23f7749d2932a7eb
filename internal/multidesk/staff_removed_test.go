package multidesk_test

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/central"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
	"qrdesk/serverdb"
)

// TestRemovedStaffWorkOfflineIsFlagged: picker li and supervisor wang are
// on the deployment's staff list, and desk B knows them. B loses the
// server; li redeems a label there. Then the manager removes li and wang
// at the server. B, still cut off, does not hear of it: li redeems two
// more labels and wang undoes one of them. When B syncs, the server, which
// holds the removal time, takes li's later redemptions as they happened
// (the parcels went out) but flags them; it refuses wang's undo (an undo
// is a supervisor's privilege, and wang was none by then), flagged too,
// and the label stays used at the server and at B. li's redemption before
// the removal is not flagged. The flagged work is in the report's flagged
// events and in the dashboard's list of removed operators' work, and the
// server's note reaches both desks through the feed, in the label's
// history. Both engines.
func TestRemovedStaffWorkOfflineIsFlagged(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 3)
		changeStaff(t, h, protocol.StaffChange{Action: protocol.StaffAdd, Name: "wang", Supervisor: true}, "1357")
		changeStaff(t, h, protocol.StaffChange{Action: protocol.StaffAdd, Name: "li"}, "2468")
		a.Sync(t)
		b.Sync(t)

		before, late, undone := codes[0], codes[1], codes[2]
		b.Offline(func() {
			h.Now = h.Now.Add(time.Minute)
			b.Redeem(t, before, "li")
			h.Now = h.Now.Add(time.Minute)
			changeStaff(t, h, protocol.StaffChange{Action: protocol.StaffRemove, Name: "li"}, "")
			changeStaff(t, h, protocol.StaffChange{Action: protocol.StaffRemove, Name: "wang"}, "")
			h.Now = h.Now.Add(10 * time.Minute)
			b.Redeem(t, late, "li")
			b.Redeem(t, undone, "li")
			h.Now = h.Now.Add(time.Minute)
			if _, err := b.Svc.UndoRedemption(ctx, app.UndoRequest{Code: undone, Reason: "wrong parcel", Operator: "wang"}); err != nil {
				t.Fatalf("desk B, offline: wang's undo: %v", err)
			}
		})
		b.Sync(t)
		a.Sync(t)
		b.Sync(t)

		// The server: every redemption stands, the two after the removal
		// flagged; the undo refused, flagged; the label still used.
		flagged := func(kind, code string) bool {
			return centraltest.Count(t, h.DB, `SELECT count(*) FROM events WHERE kind = ? AND code = ? AND (flags & ?) <> 0`, kind, code, int64(central.FlagRemovedStaff)) == 1
		}
		for _, c := range []string{before, late, undone} {
			if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM codes WHERE code = ? AND status = 'used' AND used_station = 'Desk B'`, c); n != 1 {
				t.Errorf("server: %s is not used at desk B", c)
			}
		}
		if flagged("redeem", before) {
			t.Errorf("server: li's redemption of %s before the removal is flagged", before)
		}
		if !flagged("redeem", late) || !flagged("redeem", undone) {
			t.Errorf("server: li's redemptions after the removal are not flagged (%s: %v, %s: %v)", late, flagged("redeem", late), undone, flagged("redeem", undone))
		}
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM events WHERE kind = 'undo' AND code = ? AND outcome = 'rejected' AND (flags & ?) <> 0`, undone, int64(central.FlagRemovedStaff)); n != 1 {
			t.Errorf("server: wang's undo of %s, made after wang's removal, is not refused and flagged", undone)
		}

		// The report's flagged events and the dashboard's list.
		events, err := h.DB.FlaggedEvents(ctx, 0, math.MaxInt64)
		if err != nil {
			t.Fatal(err)
		}
		listed := map[string]bool{}
		for _, e := range events {
			if strings.Contains(e.Flag, "removed from the staff list") {
				listed[string(e.Kind)+" "+e.Code] = true
			}
		}
		for _, want := range []string{"redeem " + late, "redeem " + undone, "undo " + undone} {
			if !listed[want] {
				t.Errorf("the report's flagged events lack %s: %+v", want, events)
			}
		}
		if listed["redeem "+before] {
			t.Errorf("the report flags li's redemption of %s before the removal", before)
		}
		work, err := h.DB.RemovedStaffWork(ctx, 0, math.MaxInt64)
		if err != nil {
			t.Fatal(err)
		}
		if len(work) != 3 || work[0].Operator != "li" || work[2].Kind != "undo" || work[2].Operator != "wang" || work[2].Outcome != protocol.OutcomeRejected {
			t.Errorf("the dashboard's work by removed operators: %+v, want li's two redemptions and wang's refused undo", work)
		}

		// The desks: B's copy of the label is used again and the refused
		// undo is listed with why; both desks keep the server's note.
		if st := b.Status(t, undone); st != app.StatusUsed {
			t.Errorf("desk B: %s is %s after the refused undo, want used", undone, st)
		}
		refusedUndos, err := b.Svc.RefusedUndos(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(refusedUndos) != 1 || refusedUndos[0].Code != undone || !strings.Contains(refusedUndos[0].ServerReason, "removed from the staff list") {
			t.Errorf("desk B's refused undos: %+v, want wang's undo of %s refused for the removal", refusedUndos, undone)
		}
		for _, d := range []struct {
			name string
			desk *centraltest.Desk
		}{{"A", a}, {"B", b}} {
			for _, c := range []string{before, late} {
				v, err := d.desk.Svc.Check(ctx, c)
				if err != nil || v.Record == nil {
					t.Fatalf("desk %s: check %s: %+v %v", d.name, c, v, err)
				}
				history, err := d.desk.Svc.CodeHistory(ctx, *v.Record)
				if err != nil {
					t.Fatal(err)
				}
				noted := false
				for _, e := range history {
					noted = noted || (e.Kind == "server_flag" && strings.Contains(e.Detail, "by li, removed from the staff list"))
				}
				if want := c == late; noted != want {
					t.Errorf("desk %s: %s's history notes li's removal: %v, want %v: %+v", d.name, c, noted, want, history)
				}
			}
		}
	})
}

// TestRemovedSupervisorOfflineDisableEnableReplaceRefused: supervisor wang
// is on the deployment's staff list and desk B knows him; a label is
// disabled by the manager. B loses the server; the manager removes wang
// there. B, still cut off, does not hear of it: wang disables one label,
// enables the disabled one and replaces a third, printing its new label.
// These are a supervisor's privileges, as an undo is, and wang was none by
// then: when B syncs, the server refuses all three, flagged, and lists them
// in the report's flagged events and the dashboard's removed operators'
// work. The labels stay as the server had them, and B's copies follow; the
// replacement's new label is void (disabled) at the server and at both
// desks, as the new label of a replacement refused for any other reason.
// Both engines (found by the s33 hostile review: all three were accepted,
// unflagged, the new label valid).
func TestRemovedSupervisorOfflineDisableEnableReplaceRefused(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 3)
		changeStaff(t, h, protocol.StaffChange{Action: protocol.StaffAdd, Name: "wang", Supervisor: true}, "1357")
		if _, err := a.Svc.SetDisabled(ctx, codes[2], true, "held back", "boss"); err != nil {
			t.Fatal(err)
		}
		a.Sync(t)
		b.Sync(t)
		var newCode string
		b.Offline(func() {
			h.Now = h.Now.Add(time.Minute)
			changeStaff(t, h, protocol.StaffChange{Action: protocol.StaffRemove, Name: "wang"}, "")
			h.Now = h.Now.Add(10 * time.Minute)
			if _, err := b.Svc.SetDisabled(ctx, codes[0], true, "lost", "wang"); err != nil {
				t.Fatalf("desk B offline: wang's disable: %v", err)
			}
			if _, err := b.Svc.SetDisabled(ctx, codes[2], false, "", "wang"); err != nil {
				t.Fatalf("desk B offline: wang's enable: %v", err)
			}
			newCode = b.Replace(t, codes[1], "wang")
		})
		b.Sync(t)
		a.Sync(t)
		b.Sync(t)
		events, err := h.DB.FlaggedEvents(ctx, 0, math.MaxInt64)
		if err != nil {
			t.Fatal(err)
		}
		listed := map[string]bool{}
		for _, e := range events {
			listed[string(e.Kind)+" "+e.Code] = true
		}
		work, err := h.DB.RemovedStaffWork(ctx, 0, math.MaxInt64)
		if err != nil {
			t.Fatal(err)
		}
		inWork := map[string]bool{}
		for _, w := range work {
			inWork[string(w.Kind)+" "+w.Code] = w.Outcome == protocol.OutcomeRejected && strings.Contains(w.Flag, "wang")
		}
		var missing []string
		for _, want := range []string{"disable " + codes[0], "enable " + codes[2], "replace " + codes[1]} {
			kind, code, _ := strings.Cut(want, " ")
			accepted := centraltest.Count(t, h.DB, `SELECT count(*) FROM events WHERE kind = ? AND code = ? AND outcome <> 'rejected'`, kind, code)
			flagged := centraltest.Count(t, h.DB, `SELECT count(*) FROM events WHERE kind = ? AND code = ? AND outcome = 'rejected' AND (flags & 64) <> 0`, kind, code)
			if accepted > 0 || flagged != 1 || !listed[want] || !inWork[want] {
				missing = append(missing, want)
			}
		}
		newStatus := h.Server(t).CountLabel(newCode, "unused")
		if len(missing) > 0 || newStatus != 0 {
			t.Errorf("finding: supervisor wang, removed at the server, %v offline at desk B: accepted by the server or not flagged (report flagged_events %d) or not in the removed operators' work (%d rows); the replacement %s is valid at the server (%d)", missing, len(events), len(work), newCode, newStatus)
		}
		for _, c := range []struct {
			code string
			want app.Status
		}{{codes[0], app.StatusUnused}, {codes[1], app.StatusUnused}, {codes[2], app.StatusDisabled}, {newCode, app.StatusDisabled}} {
			if n := h.Server(t).CountLabel(c.code, string(c.want)); n != 1 {
				t.Errorf("server: %s is not %s", c.code, c.want)
			}
			for name, d := range map[string]*centraltest.Desk{"desk A": a, "desk B": b} {
				if got := d.Status(t, c.code); got != c.want {
					t.Errorf("%s: %s is %s, want %s (the server's)", name, c.code, got, c.want)
				}
			}
		}
	})
}

// TestRemovedStaffOnlineScanRefused: li and wang are on the deployment's
// staff list, and desks A and B know them. The manager removes li at the
// server, and removes wang and adds wang again; B has not synced since,
// so li is still signed in there. li scans a label at B while B reaches
// the server: the server decides online scans before the parcel goes, so
// it refuses li's (nothing was handed over), with the reason B shows
// ("… was removed from the staff list at …: sign in as a current
// operator"), and records the refusal flagged: it is in the report's
// flagged events and the dashboard's work by removed operators. The label
// stays unused at the server and at B. wang (current again) and zhou (a
// free-text name the staff list never held) redeem online as before.
// Both engines (PostgreSQL's one-statement online redemption too).
func TestRemovedStaffOnlineScanRefused(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 3)
		changeStaff(t, h, protocol.StaffChange{Action: protocol.StaffAdd, Name: "li"}, "2468")
		changeStaff(t, h, protocol.StaffChange{Action: protocol.StaffAdd, Name: "wang"}, "1357")
		a.Sync(t)
		b.Sync(t)
		h.Now = h.Now.Add(time.Minute)
		changeStaff(t, h, protocol.StaffChange{Action: protocol.StaffRemove, Name: "li"}, "")
		changeStaff(t, h, protocol.StaffChange{Action: protocol.StaffRemove, Name: "wang"}, "")
		h.Now = h.Now.Add(time.Minute)
		changeStaff(t, h, protocol.StaffChange{Action: protocol.StaffAdd, Name: "wang"}, "1357")
		h.Now = h.Now.Add(time.Minute)

		refused, byWang, byZhou := codes[0], codes[1], codes[2]
		v := b.Redeem(t, refused, "li")
		if v.Outcome != app.OutcomeServerRefused || !strings.Contains(v.Reason, "li was removed from the staff list") || !strings.Contains(v.Reason, "sign in as a current operator") {
			t.Errorf("desk B: li's online scan: %s (%q), want refused by the server for li's removal", v.Outcome, v.Reason)
		}
		for _, s := range []struct{ code, operator string }{{byWang, "wang"}, {byZhou, "zhou"}} {
			if v := b.Redeem(t, s.code, s.operator); v.Outcome != app.OutcomeRedeemed {
				t.Errorf("desk B: %s's online scan: %s (%q), want redeemed", s.operator, v.Outcome, v.Reason)
			}
		}
		b.Sync(t)

		if n := h.Server(t).CountLabel(refused, "unused"); n != 1 {
			t.Errorf("server: %s is not unused after li's refused scan", refused)
		}
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM events WHERE kind = 'redeem' AND code = ? AND outcome = 'rejected' AND (flags & ?) <> 0`, refused, int64(central.FlagRemovedStaff)); n != 1 {
			t.Errorf("server: li's scan of %s is not recorded refused and flagged", refused)
		}
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM events WHERE flags <> 0 AND code IN (?, ?)`, byWang, byZhou); n != 0 {
			t.Errorf("server: wang's or zhou's redemption is flagged")
		}
		if st := b.Status(t, refused); st != app.StatusUnused {
			t.Errorf("desk B: %s is %s after the refused scan, want unused", refused, st)
		}

		events, err := h.DB.FlaggedEvents(ctx, 0, math.MaxInt64)
		if err != nil {
			t.Fatal(err)
		}
		listed := false
		for _, e := range events {
			listed = listed || (e.Kind == "redeem" && e.Code == refused && strings.Contains(e.Flag, "by li, removed from the staff list"))
		}
		if !listed {
			t.Errorf("the report's flagged events lack li's refused scan of %s: %+v", refused, events)
		}
		work, err := h.DB.RemovedStaffWork(ctx, 0, math.MaxInt64)
		if err != nil {
			t.Fatal(err)
		}
		if len(work) != 1 || work[0].Code != refused || work[0].Operator != "li" || work[0].Kind != "redeem" || work[0].Outcome != protocol.OutcomeRejected {
			t.Errorf("the dashboard's work by removed operators: %+v, want li's refused scan of %s", work, refused)
		}
	})
}

// TestCloseBeforeALateRemovalIsNotFlagged: supervisor wang closes the day
// at desk B offline, expiring its unused labels; a minute later desk A's
// manager removes wang, offline too. B syncs first: the server, which
// holds wang current, expires the labels. A's removal arrives after,
// dated when it was made: it flags wang's work after that time, and the
// close was before it, so its expiries stay unflagged (they are filed at
// the close's time, not when they reached the server).
func TestCloseBeforeALateRemovalIsNotFlagged(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 2)
		for _, d := range []*centraltest.Desk{a, b} {
			d.DB.UseClock(func() time.Time { return h.Now })
		}
		changeStaff(t, h, protocol.StaffChange{Action: protocol.StaffAdd, Name: "wang", Supervisor: true}, "1357")
		a.Sync(t)
		b.Sync(t)
		b.Offline(func() {
			if _, err := b.Svc.CloseDay(ctx, app.CloseDayRequest{ExpireUnused: true, Operator: "wang"}); err != nil {
				t.Fatalf("desk B offline: wang's close: %v", err)
			}
		})
		h.Now = h.Now.Add(time.Minute)
		a.Offline(func() {
			if _, err := a.Svc.Operators().Remove(ctx, "wang", "manager"); err != nil {
				t.Fatal(err)
			}
		})
		h.Now = h.Now.Add(time.Minute)
		b.Sync(t)
		h.Now = h.Now.Add(time.Minute)
		a.Sync(t)
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM staff WHERE name = 'wang' AND removed_at <> 0`); n != 1 {
			t.Fatalf("desk A's removal of wang did not reach the server (removed records: %d)", n)
		}
		expired := centraltest.Count(t, h.DB, `SELECT count(*) FROM events WHERE kind = 'expire' AND outcome = 'expired'`)
		flagged := centraltest.Count(t, h.DB, `SELECT count(*) FROM events WHERE kind = 'expire' AND (flags & 64) <> 0`)
		if expired != len(codes) || flagged != 0 {
			t.Errorf("wang closed the day at desk B a minute before desk A removed wang: %d of %d labels expired, %d expiries flagged as a removed supervisor's work; want all expired, none flagged",
				expired, len(codes), flagged)
		}
	})
}

// removedStaffExpiries counts the expire events the server flagged as a
// removed supervisor's work, and those its list of removed staff's work
// shows.
func removedStaffExpiries(t *testing.T, db *serverdb.DB) (flagged, listed int) {
	t.Helper()
	flagged = centraltest.Count(t, db, `SELECT count(*) FROM events WHERE kind = 'expire' AND (flags & 64) <> 0`)
	work, err := db.RemovedStaffWork(context.Background(), 0, math.MaxInt64)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range work {
		if w.Kind == "expire" {
			listed++
		}
	}
	return flagged, listed
}
