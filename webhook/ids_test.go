package webhook_test

import (
	"context"
	"testing"

	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// TestWebhookIDsTellRepeatedDisablesApart: a clerk disables a label, enables
// it and disables it again. Each is another fact, so each event has its
// own id: a receiver that de-duplicates by id, as docs/webhooks.md asks,
// dropped the second disable and enable (they had the first ones' ids: the
// id is made of the desk's event id, which the server did not keep for a
// disable or an enable), and held the label as usable while it was
// disabled.
func TestWebhookIDsTellRepeatedDisablesApart(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h, a, _, codes := centraltest.TwoDesks(t, dbPath, 1)
		for i, disable := range []bool{true, false, true, false} {
			if _, err := a.Svc.SetDisabled(ctx, codes[0], disable, "lost", "li"); err != nil {
				t.Fatalf("step %d (disable %v): %v", i, disable, err)
			}
		}
		a.Sync(t)
		evs, _, err := h.DB.Handovers(ctx, 0, 100)
		if err != nil {
			t.Fatal(err)
		}
		ids := map[string]int64{}
		n := 0
		for _, ev := range evs {
			if ev.Type != "disable" && ev.Type != "enable" {
				continue
			}
			n++
			if ev.DeskEvent == "" {
				t.Errorf("cursor %d %s: no desk_event", ev.Cursor, ev.Type)
			}
			if prev, ok := ids[ev.ID]; ok {
				t.Errorf("cursor %d %s has the id %s of cursor %d: a receiver drops it as a duplicate", ev.Cursor, ev.Type, ev.ID, prev)
			}
			ids[ev.ID] = ev.Cursor
		}
		if n != 4 {
			t.Errorf("%d disable and enable events, want 4", n)
		}
	})
}
