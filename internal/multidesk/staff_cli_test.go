package multidesk_test

import (
	"context"
	"strings"
	"testing"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// TestCommandLineRecordsOnlyTheStaffList: desk B has no operators of its
// own; the deployment's staff list, kept by the server, holds supervisor
// wang. Before B's first sync its command line records any name, as a desk
// without operators does. After the sync B holds the list: "WANG" is
// recorded as "wang", "bob" is refused with what to do. The server removes
// wang; after B's next sync wang is refused too. A badge misread by a
// letter of its marker, scanned at B, is refused as a badge and reaches
// neither B's scan log nor the server in clear. Both engines.
func TestCommandLineRecordsOnlyTheStaffList(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h, _, b, _ := centraltest.TwoDesks(t, dbPath, 1)
		staff := b.Svc.Operators()
		if got, err := staff.Recorded(ctx, "bob"); err != nil || got != "bob" {
			t.Fatalf("a desk without operators: bob recorded as %q, %v", got, err)
		}
		changeStaff(t, h, protocol.StaffChange{Action: protocol.StaffAdd, Name: "wang", Supervisor: true}, "135792")
		b.Sync(t)
		if got, err := staff.Recorded(ctx, "WANG"); err != nil || got != "wang" {
			t.Fatalf("after the sync WANG is recorded as %q, %v; want wang", got, err)
		}
		_, err := staff.Recorded(ctx, "bob")
		if app.KindOf(err) != app.KindInvalid || !strings.Contains(app.ErrorMessage(err), `"bob" is not on this desk's staff list`) {
			t.Fatalf("bob after the sync: %v", err)
		}
		wang, err := b.DB.OperatorByName(ctx, "wang")
		if err != nil {
			t.Fatal(err)
		}
		badge, err := staff.Badge(wang)
		if err != nil {
			t.Fatal(err)
		}
		changeStaff(t, h, protocol.StaffChange{Action: protocol.StaffRemove, Name: "wang"}, "")
		b.Sync(t)
		if got, err := staff.Recorded(ctx, "wang"); err == nil {
			t.Fatalf("wang, removed at the server, is still recorded (as %q) after the sync", got)
		}

		// A misread badge of wang's, at B, online.
		misread := strings.Replace(badge, "BADGE", "BADGF", 1)
		if v := b.Redeem(t, misread, "li"); v.Outcome != app.OutcomeBadge {
			t.Fatalf("a misread badge at B: %s", v.Outcome)
		}
		b.Sync(t)
		sig := badge[len(badge)-app.BadgeSignatureLen:]
		if n := b.Count(t, `SELECT count(*) FROM scans WHERE raw LIKE ? OR code LIKE ?`, "%"+sig+"%", "%"+sig+"%"); n != 0 {
			t.Fatalf("B's scan log holds the misread badge (%d rows)", n)
		}
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM events WHERE code LIKE '%`+sig+`%'`); n != 0 {
			t.Fatalf("the server holds the misread badge (%d events)", n)
		}
	})
}
