package multidesk_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"qrdesk/app"
	"qrdesk/deskclient"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// TestBadgesPrintedBeforeJoiningKeepWorking: desk D worked alone for a
// while and printed badges of its own list for picker wu and supervisor
// zhao. The deployment's staff list already holds a zhao, whose badge the
// manager renewed once (version 2). D joins the server. wu is the same
// person on both sides (D's row, now on the list): the badge wu carries
// keeps signing in at D, and only at D (another desk refuses it), until it
// is renewed. zhao's row took the deployment's record, whose badge is
// newer: the old badge cannot be zhao's any more. 'qrdesk sync' says so
// (zhao's badge stopped: print a new one), and the badge is refused with
// the picker's words (ask a supervisor), no command line. Both engines.
func TestBadgesPrintedBeforeJoiningKeepWorking(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h, a, _, _ := centraltest.TwoDesks(t, dbPath, 1)
		changeStaff(t, h, protocol.StaffChange{Action: protocol.StaffAdd, Name: "zhao", Supervisor: true}, "1357")
		changeStaff(t, h, protocol.StaffChange{Action: protocol.StaffRenewBadge, Name: "zhao"}, "")
		a.Sync(t)

		d := h.Desk(t, "Desk D", "D", "")
		for _, op := range []struct {
			name       string
			supervisor bool
		}{{"wu", false}, {"zhao", true}} {
			if _, err := d.Svc.Operators().Add(ctx, op.name, "8642", op.supervisor, "admin"); err != nil {
				t.Fatal(err)
			}
		}
		wu, zhao := badgeOf(t, d, "wu"), badgeOf(t, d, "zhao")
		signsIn(t, d, "desk D before it joined", wu, "wu", false)

		d.Svc.Remote = deskclient.New(h.URL, h.Station(t, "Desk D", "D"))
		var stopped []app.StoppedBadge
		for range 2 { // the feed brings back what the first sync sent
			st, err := d.Svc.Sync(ctx)
			if err != nil {
				t.Fatal(err)
			}
			stopped = append(stopped, st.StoppedBadges...)
		}
		if want := []app.StoppedBadge{{Name: "zhao"}}; !reflect.DeepEqual(stoppedAt(t, d), want) || len(stopped) == 0 || stopped[len(stopped)-1] != want[0] {
			t.Fatalf("the syncs that joined the staff list report the stopped badges %+v (service: %+v), want only zhao's", stopped, stoppedAt(t, d))
		}

		signsIn(t, d, "desk D after it joined, wu's badge printed before", wu, "wu", false)
		refused(t, a, "desk A, desk D's own badge of wu", wu)
		op, err := d.Svc.Operators().SignInBadge(ctx, zhao)
		if err == nil || !errors.Is(err, app.ErrBadgeBeforeJoin) {
			t.Fatalf("desk D, zhao's badge printed before the deployment's newer one came: %+v %v", op, err)
		}
		if msg := app.ErrorMessage(err); !strings.Contains(msg, "ask a supervisor for a new badge") || strings.Contains(msg, "qrdesk") {
			t.Fatalf("desk D, zhao's old badge refused with %q: want the picker told to ask a supervisor, no command line", msg)
		}
		signsIn(t, d, "desk D, zhao's badge of the staff list", badgeOf(t, d, "zhao"), "zhao", true)
		a.Sync(t)
		signsIn(t, a, "desk A, wu's badge of the staff list", badgeOf(t, d, "wu"), "wu", false)

		// Renewed (lost): the badge printed before stops at once, and
		// nothing more is reported by a sync that changed nothing.
		if _, err := d.Svc.Operators().RenewBadge(ctx, "wu", "zhao"); err != nil {
			t.Fatal(err)
		}
		refused(t, d, "desk D, wu's badge printed before, renewed since", wu)
		if err := d.Svc.Operators().DismissStoppedBadge(ctx, "zhao", "zhao"); err != nil {
			t.Fatal(err)
		}
		d.Sync(t)
		if got := stoppedAt(t, d); len(got) != 0 {
			t.Fatalf("a sync that stopped no badge printed here reports %+v", got)
		}

		// Removed at the server: the next sync says so.
		changeStaff(t, h, protocol.StaffChange{Action: protocol.StaffRemove, Name: "zhao"}, "")
		d.Sync(t)
		if want := []app.StoppedBadge{{Name: "zhao", Removed: true}}; !reflect.DeepEqual(stoppedAt(t, d), want) {
			t.Fatalf("after zhao was removed at the server, desk D reports %+v, want %+v", stoppedAt(t, d), want)
		}
	})
}

// stoppedAt is what desk d notes of the badges printed there that stopped.
func stoppedAt(t *testing.T, d *centraltest.Desk) []app.StoppedBadge {
	t.Helper()
	got, err := d.Svc.StoppedBadges(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return got
}
