package multidesk_test

import (
	"context"
	"testing"

	"qrdesk/central"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// TestUnreadChangesOfASite: the Desks page's "changes not yet read" of a
// desk counts its own site's changes after its cursor, not the other
// sites': a North desk that read North's feed to its end has none unread
// however busy South is, and one that missed two of North's labels has
// two, with South's five in between.
func TestUnreadChangesOfASite(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h := centraltest.New(t, dbPath, 0)
		n1 := siteDesk(t, h, "North", "North 1", "A")
		n2 := siteDesk(t, h, "North", "North 2", "B")
		s1 := siteDesk(t, h, "South", "South 1", "C")
		n1.Issue(t, 1)
		n1.Sync(t)
		n2.Sync(t) // North 2 has read North's feed to its end
		s1.Issue(t, 5)
		s1.Sync(t)
		n2.Sync(t) // nothing of North's since: its cursor stays put
		unread := func() int64 {
			t.Helper()
			if err := h.API.FlushAcks(ctx); err != nil {
				t.Fatal(err)
			}
			desks, head, err := h.DB.Desks(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var d central.DeskState
			for _, k := range desks {
				if k.Name == "North 2" {
					d = k
				}
			}
			if d.FeedAck == 0 || d.FeedAck >= head {
				t.Fatalf("North 2 read the feed to %d, the head is %d: want it behind the head (South's changes came after)", d.FeedAck, head)
			}
			n, capped, err := h.DB.UnreadChanges(ctx, d.SiteID, d.FeedAck)
			if err != nil || capped {
				t.Fatalf("unread: %d %v %v", n, capped, err)
			}
			return n
		}
		if n := unread(); n != 0 {
			t.Errorf("North 2 read every North change, yet %d are counted unread (South's)", n)
		}
		n1.Issue(t, 2)
		n1.Sync(t) // two North labels North 2 has not read
		s1.Issue(t, 5)
		s1.Sync(t)
		if n := unread(); n != 2 {
			t.Errorf("North 2 has %d changes unread, want North's 2 (not South's 5 in between)", n)
		}
	})
}
