package multidesk_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// Seams of the desks' clocks (and of a close) with disable and replace.

// TestDisableOfflineOnASlowClockAfterARedemption: desk B's clock is 2
// hours behind the server's (measured at its sync). At the server's 11:00
// desk A redeems X online; at the server's 12:00 desk B, offline, disables
// X (its clock reads 10:00, before the redemption). When B syncs, the
// redemption stands (a disable takes no parcel back), the disable is
// answered "rejected" with the label's status, and every desk's copy equals the
// server's: used at desk A.
func TestDisableOfflineOnASlowClockAfterARedemption(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 1)
		x := codes[0]
		behind := -2 * time.Hour
		b.Skew(h, &behind)
		b.Sync(t) // measures: 2 hours behind
		start := h.Now
		h.Now = start.Add(time.Hour)
		if v := a.Redeem(t, x, "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A online: %+v", v)
		}
		h.Now = start.Add(2 * time.Hour)
		b.Offline(func() {
			if _, err := b.Svc.SetDisabled(context.Background(), x, true, "reported stolen", "wang"); err != nil {
				t.Fatal(err)
			}
		})
		b.Sync(t)
		a.Sync(t)
		b.Sync(t)
		l := h.Server(t).Label(x)
		status, station, usedAt := l.Status, l.UsedStation, l.UsedAt
		if status != string(app.StatusUsed) || station != "Desk A" || usedAt != start.Add(time.Hour).Unix() {
			t.Errorf("the server holds %s %s at %q (%s), want used at Desk A at %s", x, status, station, app.FormatTime(usedAt), app.FormatTime(start.Add(time.Hour).Unix()))
		}
		var result string
		if err := b.DB.SQL().QueryRow(`SELECT result FROM outbox WHERE kind = 'disable' AND code = ?`, x).Scan(&result); err != nil {
			t.Fatalf("desk B's disable of %s: %v", x, err)
		}
		var answer struct{ Outcome, Status string }
		if err := json.Unmarshal([]byte(result), &answer); err != nil || answer.Outcome != "rejected" || answer.Status != string(app.StatusUsed) {
			t.Errorf("desk B's disable of the used label %s was answered %q, want a refusal naming its status", x, result)
		}
		wantConverged(t, h, map[string]*centraltest.Desk{"A": a, "B": b}, x)
		if n := h.Server(t).CountConflicts(); n != 0 {
			t.Errorf("%d conflicts, want none: one redemption, one disable", n)
		}
	})
}

// TestReplaceOnASlowClockIsNotBornExpired: desk A's clock is 3 hours
// behind the server's (measured). Desk B, its clock right, issues a
// 90-minute label; an hour later desk A replaces it. The replacement is
// issued at the server's time, is not expired at the server (it keeps the
// time left, on the server's clock), and desk B redeems it online.
func TestReplaceOnASlowClockIsNotBornExpired(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 0)
		a := h.Desk(t, "Desk A", "A", h.Station(t, "Desk A", "A"))
		b := h.Desk(t, "Desk B", "B", h.Station(t, "Desk B", "B"))
		behind := -3 * time.Hour
		a.Skew(h, &behind)
		a.Sync(t) // measures: 3 hours behind
		_, short, err := b.Svc.Issue(context.Background(), app.IssueRequest{Count: 1, Expires: "90m"})
		if err != nil {
			t.Fatal(err)
		}
		x := short[0].String()
		b.Sync(t)
		a.Sync(t)
		h.Now = h.Now.Add(time.Hour)
		y := a.Replace(t, x, "li")
		a.Sync(t)
		l := h.Server(t).Label(y)
		if l.Code == "" {
			t.Fatalf("the server has no replacement %s", y)
		}
		status, createdAt, expireAt := l.Status, l.CreatedAt, l.ExpireAt
		if createdAt != h.Now.Unix() {
			t.Errorf("the replacement was issued at %s, want %s (the server's clock)", app.FormatTime(createdAt), app.FormatTime(h.Now.Unix()))
		}
		if status != string(app.StatusUnused) || expireAt != 0 && expireAt <= h.Now.Unix() {
			t.Fatalf("the server holds the replacement %s %s expiring at %s, at %s: born expired", y, status, app.FormatTime(expireAt), app.FormatTime(h.Now.Unix()))
		}
		b.Sync(t)
		h.Now = h.Now.Add(time.Minute)
		if v := b.Redeem(t, y, "wang"); v.Outcome != app.OutcomeRedeemed {
			t.Errorf("desk B online, the replacement: %s (%s), want redeemed", v.Outcome, v.Reason)
		}
		a.Sync(t)
		wantConverged(t, h, map[string]*centraltest.Desk{"A": a, "B": b}, x, y)
	})
}

// TestDisabledLabelOutlivesTheClose: desk A disables X and closes its day
// expiring the unused labels. The close takes no disabled label: X stays
// disabled at the server and at every desk, while Y, unused, is expired.
// A supervisor who then enables X on purpose gets a label usable until its
// own expiry (the close expired what was unused at the close; the enable
// is a decision taken after it): it is unused everywhere and handed over
// once, and the redemption is flagged nowhere.
func TestDisabledLabelOutlivesTheClose(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 2)
		x, y := codes[0], codes[1]
		if _, err := a.Svc.SetDisabled(ctx, x, true, "reported stolen", "li"); err != nil {
			t.Fatal(err)
		}
		h.Now = h.Now.Add(time.Minute)
		a.CloseDay(t, true)
		a.Sync(t)
		b.Sync(t)
		desks := map[string]*centraltest.Desk{"A": a, "B": b}
		if got := h.Server(t).Status(x); got != string(app.StatusDisabled) {
			t.Errorf("the close took the disabled label %s: %s at the server, want disabled", x, got)
		}
		if got := h.Server(t).Status(y); got != string(app.StatusExpired) {
			t.Errorf("the close left the unused label %s %s at the server, want expired", y, got)
		}
		wantConverged(t, h, desks, x, y)

		h.Now = h.Now.Add(time.Minute)
		if _, err := b.Svc.SetDisabled(ctx, x, false, "", "wang"); err != nil {
			t.Fatalf("desk B enabling %s after the close: %v", x, err)
		}
		b.Sync(t)
		a.Sync(t)
		wantConverged(t, h, desks, x, y)
		if got := h.Server(t).Status(x); got != string(app.StatusUnused) {
			t.Fatalf("enabled after the close, %s is %s at the server, want unused", x, got)
		}
		h.Now = h.Now.Add(time.Minute)
		if v := a.Redeem(t, x, "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A online, the label enabled after the close: %+v", v)
		}
		b.Sync(t)
		wantConverged(t, h, desks, x)
		b.Offline(func() {
			if v := b.Redeem(t, x, "wang"); v.Outcome == app.OutcomeRedeemed {
				t.Errorf("desk B offline handed %s over again: %+v", x, v)
			}
		})
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM events WHERE code = ? AND kind = 'redeem' AND flags <> 0`, x); n != 0 {
			t.Errorf("the redemption of the enabled label is flagged (%d events)", n)
		}
	})
}
