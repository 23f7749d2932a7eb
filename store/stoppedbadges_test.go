package store

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"qrdesk/app"
)

// TestStoppedBadgesKept: a note of a stopped badge is one per name, any
// case (a later one replaces it); a badge printed for the name drops it;
// a dismissal drops it and is audited, and one of a name with no note is
// ErrNotFound.
func TestStoppedBadgesKept(t *testing.T) {
	_, db, clock := mustOpen(t)
	ctx := context.Background()
	at := clock.Now().Unix()
	if err := db.NoteStoppedBadges(ctx, []app.StoppedBadge{{Name: "li"}, {Name: "Zoë", Removed: true}}, at); err != nil {
		t.Fatal(err)
	}
	if err := db.NoteStoppedBadges(ctx, []app.StoppedBadge{{Name: "LI", Removed: true}}, at+60); err != nil {
		t.Fatal(err)
	}
	got, err := db.StoppedBadges(ctx)
	if want := []app.StoppedBadge{{Name: "LI", Removed: true}, {Name: "Zoë", Removed: true}}; err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("the notes: %+v %v, want %+v", got, err, want)
	}
	if err := db.DropStoppedBadges(ctx, []string{"li"}); err != nil {
		t.Fatal(err)
	}
	if err := db.DismissStoppedBadge(ctx, "ZOË", app.Actor{Operator: "wang"}); !errors.Is(err, app.ErrNotFound) {
		t.Fatalf("a dismissal of ZOË (names fold A–Z only, as operators do): %v", err)
	}
	if err := db.DismissStoppedBadge(ctx, "Zoë", app.Actor{Operator: "wang"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.StoppedBadges(ctx); len(got) != 0 {
		t.Fatalf("after the print and the dismissal: %+v", got)
	}
	if n := count(t, db, `SELECT count(*) FROM audit WHERE action = 'stopped_badge_dismiss' AND subject = 'Zoë' AND operator = 'wang'`); n != 1 {
		t.Fatalf("%d dismissal audit rows, want 1", n)
	}
}
