package multidesk_test

import (
	"context"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// Where two features meet ("the seams table" in docs/design.md): for each
// pair, the rule that keeps one label, one use, shown on both engines with
// real desks. This file holds sites × replace and sites × disable; the
// other pairs are in seams_*_test.go by subject.

// TestReplaceAcrossSitesStaysInItsSite: a North desk holds a copy of a
// label of site main, because it redeemed it and its supervisor undid it,
// or because it was refused it (used at main, then undone there). It
// replaces the label online. The replacement belongs to the old label's
// site (main), so main's desks get both changes (old disabled "replaced
// by", new unused) and the North desk's copies follow the server; a use of
// the replacement at main reaches the North desk, which then refuses both
// labels offline. The same when main's desk replaces the label North 1
// holds a copy of: North 1's copy of the replacement follows too.
func TestReplaceAcrossSitesStaysInItsSite(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		for _, how := range []string{"redeemed and undone", "refused", "replaced at main"} {
			t.Run(how, func(t *testing.T) {
				h := centraltest.New(t, dbPath, 0)
				m1 := h.Desk(t, "Main 1", "A", h.Station(t, "Main 1", "A"))
				m2 := h.Desk(t, "Main 2", "B", h.Station(t, "Main 2", "B"))
				n1 := siteDesk(t, h, "North", "North 1", "N")
				codes := m1.Issue(t, 2)
				for _, d := range []*centraltest.Desk{m1, m2, n1} {
					d.Sync(t)
				}
				x := codes[0]
				switch how {
				case "redeemed and undone", "replaced at main":
					if v := n1.Redeem(t, x, "li"); v.Outcome != app.OutcomeRedeemed {
						t.Fatalf("North 1 online: %+v", v)
					}
					h.Now = h.Now.Add(time.Minute)
					n1.Undo(t, x, "wrong parcel")
				case "refused":
					if v := m1.Redeem(t, x, "wang"); v.Outcome != app.OutcomeRedeemed {
						t.Fatalf("Main 1 online: %+v", v)
					}
					if v := n1.Redeem(t, x, "li"); v.Outcome != app.OutcomeAlreadyUsed {
						t.Fatalf("North 1 online after Main 1: %+v", v)
					}
					h.Now = h.Now.Add(time.Minute)
					m1.Undo(t, x, "wrong parcel")
					m1.Sync(t)
				}
				n1.Sync(t)
				if got := n1.Status(t, x); got != app.StatusUnused {
					t.Fatalf("North 1's copy of %s is %s before the replace, want unused: the test's premise changed", x, got)
				}
				h.Now = h.Now.Add(time.Minute)
				replacer := n1
				if how == "replaced at main" {
					replacer = m1
				}
				y := replacer.Replace(t, x, "li")
				replacer.Sync(t)
				if got := h.Server(t).LabelSite(y); got != "main" {
					t.Errorf("the replacement %s of main's label is of site %q at the server, want main", y, got)
				}
				if got := h.Server(t).Status(x); got != string(app.StatusDisabled) {
					t.Errorf("the server holds the replaced label %s %s, want disabled", x, got)
				}
				for _, d := range []*centraltest.Desk{m1, m2, n1} {
					d.Sync(t)
				}
				desks := map[string]*centraltest.Desk{"Main 1": m1, "Main 2": m2, "North 1": n1}
				wantConverged(t, h, desks, x, y)
				if v := m2.Redeem(t, x, "zhao"); v.Outcome == app.OutcomeRedeemed {
					t.Errorf("Main 2 redeemed the replaced label %s: %+v", x, v)
				}
				h.Now = h.Now.Add(time.Minute)
				if v := m2.Redeem(t, y, "zhao"); v.Outcome != app.OutcomeRedeemed {
					t.Fatalf("Main 2, the replacement %s online: %+v", y, v)
				}
				for _, d := range []*centraltest.Desk{m1, n1} {
					d.Sync(t)
				}
				wantConverged(t, h, desks, x, y)
				n1.Offline(func() {
					for _, c := range []string{x, y} {
						if v := n1.Redeem(t, c, "li"); v.Outcome == app.OutcomeRedeemed {
							t.Errorf("North 1 offline handed %s over again: %+v", c, v)
						}
					}
				})
			})
		}
	})
}

// TestDisableAcrossSitesReachesTheLabelsSite: a North desk holding a copy
// of a label of site main (it redeemed it and its supervisor undid it)
// disables it. Main's desks refuse it, online and offline; an enable at
// main reaches everyone, the North desk too, and the label is handed over
// once.
func TestDisableAcrossSitesReachesTheLabelsSite(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h := centraltest.New(t, dbPath, 0)
		m1 := h.Desk(t, "Main 1", "A", h.Station(t, "Main 1", "A"))
		m2 := h.Desk(t, "Main 2", "B", h.Station(t, "Main 2", "B"))
		n1 := siteDesk(t, h, "North", "North 1", "N")
		codes := m1.Issue(t, 2)
		for _, d := range []*centraltest.Desk{m1, m2, n1} {
			d.Sync(t)
		}
		x := codes[0]
		if v := n1.Redeem(t, x, "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("North 1 online: %+v", v)
		}
		h.Now = h.Now.Add(time.Minute)
		n1.Undo(t, x, "wrong parcel")
		n1.Sync(t)
		h.Now = h.Now.Add(time.Minute)
		if _, err := n1.Svc.SetDisabled(ctx, x, true, "reported stolen", "li"); err != nil {
			t.Fatal(err)
		}
		n1.Sync(t)
		if got := h.Server(t).Status(x); got != string(app.StatusDisabled) {
			t.Fatalf("the server holds %s %s after North 1's disable, want disabled", x, got)
		}
		m1.Sync(t)
		m2.Sync(t)
		desks := map[string]*centraltest.Desk{"Main 1": m1, "Main 2": m2, "North 1": n1}
		wantConverged(t, h, desks, x)
		if v := m1.Redeem(t, x, "wang"); v.Outcome != app.OutcomeDisabled {
			t.Errorf("Main 1 online, the disabled label: %+v", v)
		}
		m2.Offline(func() {
			if v := m2.Redeem(t, x, "zhao"); v.Outcome != app.OutcomeDisabled {
				t.Errorf("Main 2 offline, the disabled label: %+v", v)
			}
		})
		h.Now = h.Now.Add(time.Minute)
		if _, err := m2.Svc.SetDisabled(ctx, x, false, "", "zhao"); err != nil {
			t.Fatal(err)
		}
		for _, d := range []*centraltest.Desk{m2, m1, n1} {
			d.Sync(t)
		}
		wantConverged(t, h, desks, x)
		if got := n1.Status(t, x); got != app.StatusUnused {
			t.Errorf("North 1's copy of %s is %s after main's enable, want unused", x, got)
		}
		h.Now = h.Now.Add(time.Minute)
		if v := n1.Redeem(t, x, "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("North 1 online after the enable: %+v", v)
		}
		for _, d := range []*centraltest.Desk{m1, m2} {
			d.Sync(t)
		}
		wantConverged(t, h, desks, x)
		m1.Offline(func() {
			if v := m1.Redeem(t, x, "wang"); v.Outcome == app.OutcomeRedeemed {
				t.Errorf("Main 1 offline handed %s over again: %+v", x, v)
			}
		})
	})
}
