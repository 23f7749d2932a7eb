package serverdb

import (
	"context"
	"errors"
	"testing"

	"qrdesk/app"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// TestLookalikeNamesStoredBeforeTheRule: a staff list upgraded from before
// the name rules (app/operatorname.go) may hold "boss" and "bo\u200bss"
// side by side. Both keep working: a new PIN, a new badge and a removal
// of either reach only that one; once one is removed, the other is no
// longer compared with it, and a new name that reads like the remaining
// one is still refused. Both engines.
func TestLookalikeNamesStoredBeforeTheRule(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(testing.TB) string) {
		ctx := context.Background()
		c := openTestDB(t, dbPath)
		hash, err := app.HashPIN("2468")
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"boss", "bo\u200bss"} { // as an older release stored them
			if _, err := c.e.exec(ctx, `INSERT INTO staff (name, supervisor, pin_hash, badge_version, created_at) VALUES (?, ?, ?, 1, 1)`, name, true, hash); err != nil {
				t.Fatal(err)
			}
		}
		change := func(action, name string) protocol.StaffMember {
			t.Helper()
			ch := protocol.StaffChange{Action: action, Name: name}
			if action == protocol.StaffSetPIN {
				ch.PINHash = hash
			}
			m, err := c.ChangeStaff(ctx, ch, "", 100)
			if err != nil {
				t.Fatalf("%s %q: %v", action, name, err)
			}
			if m.Name != name {
				t.Fatalf("%s %q changed %q", action, name, m.Name)
			}
			return m
		}
		change(protocol.StaffSetPIN, "bo\u200bss")
		if m := change(protocol.StaffRenewBadge, "bo\u200bss"); m.BadgeVersion != 2 {
			t.Errorf("badge of bo\u200bss: %d, want 2", m.BadgeVersion)
		}
		if m := change(protocol.StaffRenewBadge, "boss"); m.BadgeVersion != 2 {
			t.Errorf("badge of boss: %d, want 2 (renewed once)", m.BadgeVersion)
		}
		change(protocol.StaffRemove, "bo\u200bss")
		_, err = c.ChangeStaff(ctx, protocol.StaffChange{Action: protocol.StaffAdd, Name: "\uff22\uff2f\uff33\uff33", PINHash: hash}, "", 101)
		var like *app.LooksLikeError
		if !errors.As(err, &like) || like.Existing != "boss" {
			t.Errorf("add full-width BOSS beside boss: %v, want it refused as reading like boss", err)
		}
		list, err := c.Staff(ctx, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 1 || list[0].Name != "boss" {
			t.Errorf("current staff %+v, want boss alone", list)
		}
	})
}
